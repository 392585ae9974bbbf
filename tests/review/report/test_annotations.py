"""``review summary --output-format github``: one workflow annotation per place of an open finding.

Checked the way GitHub's runner reads them: each line parsed as a workflow command and its
properties and message unescaped (actions/toolkit's ``command.ts`` escaping, reversed).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from aidlc_review.review.record.models import FindingsDocument
from aidlc_review.review.report.annotations import escape_data, escape_property, render_annotations
from tests.review.workspace import (
    FAKE_KEY,
    LEAKY,
    LINT_ERROR,
    UNFORMATTED,
    findings_doc,
    make_workspace,
    review_args,
    script_agent,
)
from tests.shared_builds import build_once, session_root

COMMAND = re.compile(r"^::(?P<level>error|warning|notice) (?P<props>[^:]*)::(?P<message>.*)$")
MANIFEST = "aidlc-docs/construction/u1-orders/code-generation/source-manifest.json"


def unescape(text: str) -> str:
    for escaped, char in (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%")):
        text = text.replace(escaped, char)
    return text


def parse(line: str) -> tuple[str, dict[str, str], str]:
    """One workflow command as the runner reads it: level, properties, message."""
    found = COMMAND.match(line)
    assert found, line
    props = dict(p.split("=", 1) for p in found["props"].split(","))
    return found["level"], {k: unescape(v) for k, v in props.items()}, unescape(found["message"])


def _review(root: Path) -> None:
    files = {
        "src/orders/app.py": LINT_ERROR,
        "src/orders/util.py": UNFORMATTED,
        "src/orders/settings.py": LEAKY,
    }
    make_workspace(root / "ws", files)
    assert main(review_args(root / "ws")) == 1
    lost = make_workspace(root / "lost", {"src/orders/app.py": LINT_ERROR})
    failing = script_agent(root / "agents" / "failing.py", "import sys\nsys.exit(3)\n")
    assert main(review_args(lost, "--reviewer", failing)) == 1


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory) -> Path:
    return build_once(session_root(tmp_path_factory) / "review-annotations", _review)


def annotations(capsys, ws: Path, *extra: str) -> tuple[int, list[str]]:
    capsys.readouterr()
    argv = ["review", "summary", "--from", str(ws / "aidlc-docs"), "--workspace", str(ws)]
    code = main([*argv, "--output-format", "github", *extra])
    return code, capsys.readouterr().out.splitlines()


def test_github_escaping_is_the_runners():
    assert escape_data("100% done\r\nnext: a, b") == "100%25 done%0D%0Anext: a, b"
    assert escape_property("src/a,b:c.py\n%") == "src/a%2Cb%3Ac.py%0A%25"


def test_one_annotation_per_open_finding_error_when_blocking_warning_when_minor(reviewed, capsys):
    ws = reviewed / "ws"
    code, lines = annotations(capsys, ws)
    assert code == 1
    doc = findings_doc(ws)
    opened = [f for f in doc["passes"][-1]["findings"] if f["status"] == "open"]
    shown = [parse(line) for line in lines]
    assert [
        (level, props["file"], props["line"], props["endLine"]) for level, props, _ in shown
    ] == [
        ("error", "src/orders/app.py", "1", "1"),
        ("error", "src/orders/settings.py", "3", "3"),
        ("warning", "src/orders/util.py", "2", "2"),
    ]
    assert [props["title"] for _, props, _ in shown] == [
        "CR-001 major linter/F401",
        "CR-002 critical secret-scan/AWS Access Key",
        "CR-003 minor formatter/unformatted",
    ]
    for (_, _, message), finding in zip(shown, opened, strict=True):
        assert message == f"{finding['finding']}\n\n{finding['recommendation']}"
    assert lines[0] == (
        "::error file=src/orders/app.py,line=1,endLine=1,title=CR-001 major linter/F401::"
        "F401 `os` imported but unused (https://docs.astral.sh/ruff/rules/unused-import)%0A%0A"
        "Fix the code the linter points at (or configure the rule deliberately)."
    )


def test_the_secret_is_never_in_an_annotation(reviewed, capsys):
    _, lines = annotations(capsys, reviewed / "ws")
    text = "\n".join(lines)
    assert FAKE_KEY not in text and FAKE_KEY[4:] not in text
    (secret,) = [line for line in lines if "secret-scan" in line]
    assert "hashed secret" in secret


def test_a_finding_about_no_file_is_shown_at_the_units_manifest(reviewed, capsys):
    code, lines = annotations(capsys, reviewed / "lost")
    assert code == 1
    level, props, message = parse(lines[0])
    assert (level, props["file"], props["line"]) == ("error", MANIFEST, "1")
    assert props["title"] == "CR-001 major runtime/reviewer-unavailable"
    assert message.startswith("(the unit) reviewer unavailable: agent exited with status 3\n\n")


def test_a_waived_finding_is_a_notice_and_a_stale_unit_says_why(reviewed, tmp_path, capsys):
    doc = FindingsDocument.model_validate(findings_doc(reviewed / "ws"))
    findings = doc.open_findings()
    (lint,) = [f for f in findings if f.rule == "F401"]
    levels = [
        parse(line)[0] for line in render_annotations(findings, MANIFEST, {lint.id}).splitlines()
    ]
    assert levels == ["notice", "error", "warning"]
    # a unit whose source changed after its review: not approvable, and the run page says so
    stale = tmp_path / "stale"
    shutil.copytree(reviewed / "ws", stale)
    (stale / "src/orders/util.py").write_text(UNFORMATTED + "# changed\n")
    code, lines = annotations(capsys, stale)
    assert code == 1
    reasons = [parse(line) for line in lines if "is not approvable" in line]
    assert reasons, lines
    assert {(level, props["title"]) for level, props, _ in reasons} == {
        ("error", "u1-orders is not approvable")
    }
    assert any("src/orders/util.py" in message for _, _, message in reasons)


def test_json_and_another_output_format_are_refused(reviewed, capsys):
    ws = reviewed / "ws"
    argv = ["review", "summary", "--from", str(ws / "aidlc-docs"), "--workspace", str(ws)]
    assert main([*argv, "--json", "--output-format", "github"]) == 2
    assert capsys.readouterr().err == "--json and --output-format github: choose one\n"
    assert main([*argv, "--output-format", "json"]) == 1
    assert json.loads(capsys.readouterr().out)["verdict"] == "NOT-READY"


def test_review_run_prints_the_units_annotations_in_place_of_its_text(tmp_path, capsys):
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": LINT_ERROR})
    capsys.readouterr()
    assert main(review_args(ws, "--output-format", "github")) == 1
    lines = capsys.readouterr().out.splitlines()
    [(level, props, message)] = [parse(line) for line in lines]
    assert (level, props["file"], props["line"], props["title"]) == (
        "error",
        "src/orders/app.py",
        "1",
        "CR-001 major linter/F401",
    )
    assert message.startswith("F401 `os` imported but unused")


def test_review_verify_prints_the_open_findings_and_why_the_unit_is_not_approvable(
    reviewed, tmp_path, capsys
):
    ws = tmp_path / "ws"
    shutil.copytree(reviewed / "ws", ws)
    capsys.readouterr()
    argv = ["review", "verify", "--workspace", str(ws), "--unit", "u1-orders", "--ready"]
    assert main([*argv, "--output-format", "github"]) == 1
    shown = [parse(line) for line in capsys.readouterr().out.splitlines()]
    assert [(level, props.get("file")) for level, props, _ in shown[:3]] == [
        ("error", "src/orders/app.py"),
        ("error", "src/orders/settings.py"),
        ("warning", "src/orders/util.py"),
    ]
    reasons = [message for _, props, message in shown if "not approvable" in props["title"]]
    assert reasons and all("NOT-READY" in m or "not READY" in m for m in reasons), reasons
    assert FAKE_KEY not in "".join(m for _, _, m in shown)


def test_review_verify_of_a_fresh_ready_unit_prints_no_annotation(tmp_path, capsys):
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": '"""Fine."""\n'})
    assert main(review_args(ws)) == 0
    capsys.readouterr()
    argv = ["review", "verify", "--workspace", str(ws), "--unit", "u1-orders", "--ready"]
    assert main([*argv, "--output-format", "github"]) == 0
    assert capsys.readouterr().out == ""


def test_run_and_verify_refuse_json_with_another_output_format(tmp_path, capsys):
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": LINT_ERROR})
    assert main(review_args(ws, "--json", "--output-format", "github")) == 2
    assert capsys.readouterr().err == "--json and --output-format github: choose one\n"
    assert not (ws / "aidlc-docs/construction/u1-orders/code-review").exists()
    verify = ["review", "verify", "--workspace", str(ws), "--unit", "u1-orders"]
    assert main([*verify, "--json", "--output-format", "github"]) == 2
