"""A file name is anyone's words: in the report and the briefs it is one code span, inert."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import unquote

from markdown_it import MarkdownIt

from aidlc_review.cli.main import main
from aidlc_review.review.report.render import code_span
from tests.review.workspace import UNIT, make_workspace, report_text

HOSTILE = "src/a`<img src=x onerror=alert(1)>`[click](https:evil.example)``.py"


def test_a_code_span_holds_any_name_whole() -> None:
    for name in ("plain.py", "a`b.py", "``x``", "`lead", "trail`", "new\nline"):
        html = MarkdownIt().render(code_span(name)).strip()
        assert html.startswith("<p><code>") and html.endswith("</code></p>"), (name, html)
        assert html.count("<code>") == 1


def test_a_hostile_claimed_file_name_renders_as_text_in_the_report(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", {HOSTILE: "import os\n"})

    assert main(["review", "run", "--workspace", str(ws), "--unit", UNIT, "--json"]) == 1

    html = MarkdownIt().render(report_text(ws))
    assert "<img" not in html and "<a href" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html  # shown, as text, inside a code span
    manifest = ws / f"aidlc-docs/construction/{UNIT}/code-generation/source-manifest.json"
    assert json.loads(manifest.read_text())["writes"] == [{"path": HOSTILE}]


INJECTING = "src/a ::error title=approved,line=1::fine #1 100%.py"  # no newline: refused


def test_a_name_holding_a_workflow_command_is_one_path_in_sarif_and_annotations(
    tmp_path: Path, capsys
) -> None:
    ws = make_workspace(tmp_path / "ws", {INJECTING: "import os\n"})
    sarif = tmp_path / "review.sarif"

    assert (
        main(["review", "run", "--workspace", str(ws), "--unit", UNIT, "--sarif", str(sarif)]) == 1
    )
    capsys.readouterr()
    argv = ["review", "summary", "--from", str(ws / "aidlc-docs"), "--workspace", str(ws)]
    main([*argv, "--output-format", "github"])
    printed = capsys.readouterr().out.splitlines()

    [result] = [
        r for r in json.loads(sarif.read_text())["runs"][0]["results"] if "F401" in r["ruleId"]
    ]
    uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert "#" not in uri and " " not in uri and "%.py" not in uri
    assert unquote(uri) == INJECTING
    [annotation] = [line for line in printed if "F401" in line]
    assert "file=src/a %3A%3Aerror title=approved%2Cline=1%3A%3Afine #1 100%25.py," in annotation
