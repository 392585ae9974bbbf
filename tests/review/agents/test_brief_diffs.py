"""Briefs show code: the unit's diff against its base (claimed paths only), what the repair
changed from pass 2 on, a stated cap, and the repair brief's code around each location."""

from __future__ import annotations

import re
from pathlib import Path

from aidlc_review.cli.main import main
from aidlc_review.review.agents.brief import finding_view, reviewer_brief
from aidlc_review.review.inputs.paths import RecordPaths
from aidlc_review.review.inputs.unit import UnitContext
from aidlc_review.review.record.models import Finding
from aidlc_review.review.report.render import render
from aidlc_review.review.run import engine
from aidlc_review.review.source.kept_source import as_text
from tests.review.workspace import (
    CALC_BUG,
    CALC_FIXED,
    CLEAN,
    FAKE_KEY,
    LEAKY,
    UNIT,
    git,
    make_workspace,
    review_args,
    script_agent,
    write,
    write_manifest,
)

REVIEWER = """
    import json, pathlib, sys
    sys.stdin.read()
    bug = "if not values" not in pathlib.Path("src/orders/calc.py").read_text()
    findings = [{"severity": "major", "category": "error-handling", "path": "src/orders/calc.py",
                 "location": "3", "finding": "mean() divides by zero for an empty list",
                 "evidence": "`sum(values) / count` divides by 0 for []",
                 "recommendation": "Guard the empty list."}]
    print(json.dumps({"verdict": "NOT-READY" if bug else "READY", "summary": "s",
                      "findings": findings if bug else []}))
"""
REPAIRER = f"""
    import pathlib, sys
    sys.stdin.read()
    pathlib.Path("src/orders/calc.py").write_text({CALC_FIXED!r})
"""


def _brief(ws: Path, name: str) -> str:
    folder = ws / "aidlc-docs" / ".aidlc-engine" / "code-review" / UNIT / "briefs"
    return (folder / name).read_text()


def _section(brief: str, heading: str) -> str:
    start = brief.index(heading)
    end = brief.find("\n## ", start)
    nxt = brief.find("\n### ", start + 1)
    ends = [e for e in (end, nxt) if e != -1]
    return brief[start : min(ends) if ends else len(brief)]


def test_the_pass_one_brief_diffs_the_claimed_files_against_the_base_and_nothing_else(
    tmp_path, capsys
):
    ws = make_workspace(
        tmp_path / "ws",
        {"src/orders/calc.py": CALC_BUG, "src/orders/other.py": CLEAN},
        claims=["src/orders/calc.py"],
    )
    write(ws / "src/orders/calc.py", CALC_FIXED)
    write(ws / "src/orders/other.py", CLEAN + "\n\nUNCLAIMED = 1\n")
    write(ws / "src/orders/settings.py", LEAKY)  # untracked, claimed, holds a secret
    write_manifest(ws, ["src/orders/calc.py", "src/orders/settings.py"])

    reviewer = script_agent(tmp_path / "reviewer.py", REVIEWER)  # the built-in reads none
    main(review_args(ws, "--reviewer", reviewer))

    brief = _brief(ws, "reviewer-attempt1-pass1.md")
    against = _section(brief, "### Against the base")
    assert "diff --git a/src/orders/calc.py b/src/orders/calc.py\n" in against
    assert "-    count = len(values)\n" in against
    assert "+    if not values:\n" in against
    assert (
        "diff --git a/src/orders/settings.py b/src/orders/settings.py\nnew file\n"
        "--- /dev/null\n+++ b/src/orders/settings.py\n"
    ) in against
    assert "other.py" not in brief
    assert FAKE_KEY not in brief and "[redacted: AWS Access Key" in against
    assert "truncated" not in brief


def test_without_a_configured_base_a_branch_is_diffed_from_where_it_left_main(tmp_path, capsys):
    ws = make_workspace(tmp_path / "ws", {"src/orders/calc.py": CALC_BUG})
    git(ws, "checkout", "-q", "-b", "feature")
    write(ws / "src/orders/calc.py", CALC_FIXED)
    git(ws, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qam", "fix")

    reviewer = script_agent(tmp_path / "reviewer.py", REVIEWER)  # the built-in reads none
    main(review_args(ws, "--reviewer", reviewer))

    against = _section(_brief(ws, "reviewer-attempt1-pass1.md"), "### Against the base")
    assert "+    if not values:\n" in against


def test_the_pass_two_brief_shows_what_the_repair_changed(tmp_path, capsys):
    ws = make_workspace(tmp_path / "ws", {"src/orders/calc.py": CALC_BUG})
    reviewer = script_agent(tmp_path / "reviewer.py", REVIEWER)
    repairer = script_agent(tmp_path / "repairer.py", REPAIRER)

    main(review_args(ws, "--reviewer", reviewer, "--repairer", repairer))

    first = _brief(ws, "reviewer-attempt1-pass1.md")
    assert "### Since pass" not in first
    assert "(no claimed file differs from the base)" in first
    second = _brief(ws, "reviewer-attempt1-pass2.md")
    since = _section(second, "### Since pass 1 (attempt 1): what the repair changed")
    assert (
        "--- a/src/orders/calc.py\n+++ b/src/orders/calc.py\n"
        "@@ -1,3 +1,4 @@\n"
        " def mean(values: list[float]) -> float:\n"
        "-    count = len(values)\n"
        "-    return sum(values) / count\n"
        "+    if not values:\n"
        "+        return 0.0\n"
        "+    return sum(values) / len(values)\n"
    ) in since
    assert "CR-001 major error-handling `src/orders/calc.py`" in second
    assert "  - line 3\n" in second


def test_the_repair_brief_quotes_each_location_with_code_around_it(tmp_path, capsys):
    ws = make_workspace(tmp_path / "ws", {"src/orders/calc.py": CALC_BUG})
    reviewer = script_agent(tmp_path / "reviewer.py", REVIEWER)
    repairer = script_agent(tmp_path / "repairer.py", REPAIRER)

    main(review_args(ws, "--reviewer", reviewer, "--repairer", repairer))

    repair = _brief(ws, "repairer-attempt1-pass1.md")
    assert (
        "Locations (1):\n\n- `src/orders/calc.py:3`\n\n```\n"
        "1 | def mean(values: list[float]) -> float:\n"
        "2 |     count = len(values)\n"
        "3 |     return sum(values) / count\n```\n"
    ) in repair


def test_a_diff_over_the_cap_is_cut_and_the_cut_is_stated(tmp_path, capsys):
    body = "".join(f"VALUE_{n} = {n}\n" for n in range(20))
    files = {f"src/orders/m{n}.py": '"""M."""\n' for n in range(3)}
    ws = make_workspace(tmp_path / "ws", files)
    for rel in files:
        write(ws / rel, '"""M."""\n' + body)
    paths = RecordPaths.resolve(ws, UNIT)
    ctx = UnitContext.load(paths, None, "gated")
    gathered = engine.gather(ctx, lambda _: None)

    brief = reviewer_brief(ctx, engine.new_document(UNIT), gathered, diff_bytes=600)

    against = _section(brief, "### Against the base")
    note = re.search(r"\*\*diff truncated at 600 bytes; (\d+) file\(s\) omitted: (.*)\*\*", against)
    assert note is not None, against
    omitted = note.group(2).split(", ")
    assert int(note.group(1)) == len(omitted) >= 1
    assert all(f"diff --git a/{rel}" not in against for rel in omitted)
    assert "... (truncated)\n" in against
    assert "Diffs are capped at 600 bytes in all" in brief


def test_every_location_of_a_finding_is_listed_and_quoted():
    finding = Finding.model_validate(
        {
            "id": "CR-004",
            "severity": "major",
            "category": "error-handling",
            "path": "src/app.py",
            "location": "4",
            "locations": [
                {"line": 4},
                {"line": 15, "message": "bare except swallows KeyboardInterrupt"},
                {"line": 42, "end_line": 43},
            ],
            "finding": "bare except",
            "evidence": "ruff E722",
            "recommendation": "Catch the exceptions you expect.",
            "status": "open",
            "source": "sensor",
            "fingerprint": "fp",
            "first_seen": 1,
            "attempt": 1,
        }
    )
    source = as_text("".join(f"line {n}\n" for n in range(1, 51)).encode())

    text = render(
        "repair-brief.md.j2",
        unit_label="unit u",
        attempt=1,
        number=1,
        budget=2,
        manifest="m.json",
        blocking=[finding_view(finding, {"src/app.py": source})],
        minor=[],
        claimed=["src/app.py"],
    )

    assert "Locations (3):" in text
    assert "- `src/app.py:4`\n" in text
    assert "- `src/app.py:15`: bare except swallows KeyboardInterrupt\n" in text
    assert "- `src/app.py:42-43`\n" in text
    assert "12 | line 12\n" in text and "18 | line 18\n" in text
    assert "39 | line 39\n" in text and "46 | line 46\n" in text
