"""A repairer that cannot fix a finding switches its check off instead: no gate approves that.

The unit's change leaves an unused import and a type error; the repairer answers each with a
suppression (``# noqa``, ``# type: ignore``). The review keeps both findings open, named with
the comment that tried to hide them, and no gate approves until a person waives them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from tests.review.workspace import (
    PYPROJECT,
    UNIT,
    findings_doc,
    make_workspace,
    report_text,
    script_agent,
)

APP = "src/orders/app.py"
CHANGED = (
    "import os\n\n\ndef total(prices: list[int]) -> int:\n"
    '    count: int = "n"\n    return sum(prices)\n'
)
SUPPRESSED = (
    "import os  # noqa: F401\n\n\ndef total(prices: list[int]) -> int:\n"
    '    count: int = "n"  # type: ignore[assignment]  # noqa: F841\n    return sum(prices)\n'
)


def gate(ws: Path, *args: str) -> int:
    return main(["review", *args, "--workspace", str(ws), "--unit", UNIT])


@pytest.fixture
def suppressed(tmp_path: Path) -> Path:
    """A reviewed unit whose repairer added suppressions instead of fixing the code."""
    ws = make_workspace(
        tmp_path / "ws", {APP: '"""Orders."""\n', "mypy.ini": "[mypy]\n"}, claims=[APP]
    )
    (ws / APP).write_text(CHANGED)
    repairer = script_agent(
        tmp_path / "agents" / "repairer.py",
        f"""
        import pathlib, sys
        sys.stdin.read()
        pathlib.Path({str(ws / APP)!r}).write_text({SUPPRESSED!r})
        """,
    )
    assert (
        main(["review", "run", "--workspace", str(ws), "--unit", UNIT, "--repairer", repairer]) == 1
    )
    return ws


def test_the_suppressions_a_repairer_adds_leave_the_findings_open_and_named(suppressed: Path):
    doc = findings_doc(suppressed)
    assert (suppressed / APP).read_text() == SUPPRESSED  # the repair ran
    assert doc["verdict"] == "NOT-READY"
    last = doc["passes"][-1]["findings"]
    still = {(f["check"], f["severity"], f["status"]) for f in last if f["status"] == "open"}
    assert ("linter", "major", "open") in still
    assert ("type-check", "major", "open") in still
    report = report_text(suppressed)
    assert "hidden by `# noqa: F401` (line 1, added by this change), which does not count" in report
    assert "hidden by `# type: ignore[assignment]` (line 5, added by this change)" in report


def test_no_gate_approves_until_a_person_waives_each(suppressed: Path):
    assert gate(suppressed, "verify", "--ready") == 1
    assert gate(suppressed, "gate", "--approve", "--by", "lead@example.com") != 0

    blocking = [
        f["id"]
        for f in findings_doc(suppressed)["passes"][-1]["findings"]
        if f["status"] == "open" and f["severity"] in ("critical", "major")
    ]
    for finding in blocking:
        reason = ["--reason", "kept on purpose: reviewed by the lead", "--by", "lead"]
        assert gate(suppressed, "waive", finding, *reason) == 0

    assert gate(suppressed, "verify", "--ready") == 0
    assert gate(suppressed, "gate", "--approve", "--by", "lead@example.com") == 0


def test_suppressions_a_repairer_commits_are_still_not_at_the_units_base(tmp_path: Path):
    """The base is the commit sealed at stage entry, not wherever HEAD has moved since."""
    ws = make_workspace(tmp_path / "ws", {APP: '"""Orders."""\n'}, claims=[APP])
    (ws / APP).write_text("import os\n")
    repairer = script_agent(
        tmp_path / "agents" / "repairer.py",
        f"""
        import pathlib, subprocess, sys
        sys.stdin.read()
        pathlib.Path({str(ws / APP)!r}).write_text("import os  # noqa: F401\\n")
        git = ["git", "-c", "user.name=a", "-c", "user.email=a@example.invalid"]
        subprocess.run([*git, "commit", "-qam", "fix lint"], cwd={str(ws)!r}, check=True)
        """,
    )
    assert (
        main(["review", "run", "--workspace", str(ws), "--unit", UNIT, "--repairer", repairer]) == 1
    )
    assert "hidden by `# noqa: F401`" in report_text(ws)
    assert gate(ws, "verify", "--ready") == 1


def test_a_repairer_that_turns_the_rule_off_in_a_claimed_config_gets_no_approval(tmp_path: Path):
    ws = make_workspace(
        tmp_path / "ws",
        {APP: '"""Orders."""\n', "pyproject.toml": PYPROJECT},
        claims=[APP, "pyproject.toml"],
    )
    (ws / APP).write_text("import os\n")
    turned_off = PYPROJECT + 'ignore = ["F401"]\n'
    repairer = script_agent(
        tmp_path / "agents" / "repairer.py",
        f"""
        import pathlib, sys
        sys.stdin.read()
        pathlib.Path({str(ws / "pyproject.toml")!r}).write_text({turned_off!r})
        """,
    )
    assert (
        main(["review", "run", "--workspace", str(ws), "--unit", UNIT, "--repairer", repairer]) == 1
    )
    last = findings_doc(ws)["passes"][-1]["findings"]
    # ruff judges with the base's configuration: F401 stays, and the edit is a finding itself
    assert sorted((f["check"], f["path"], f["rule"]) for f in last if f["status"] == "open") == [
        ("linter", "pyproject.toml", "config-changed"),
        ("linter", APP, "F401"),
    ]
    assert "the change edits ruff's configuration: [tool.ruff] in pyproject.toml" in report_text(ws)
    assert gate(ws, "verify", "--ready") == 1
