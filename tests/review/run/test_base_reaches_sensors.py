"""The base a review resolves is the sensors' base too: a Bolt unit's branch point
(``ReviewRequest.base_revision``), so a dependency committed on the unit branch is still a
change the dependencies sensor judges, like the unclaimed-changes check does."""

from __future__ import annotations

import subprocess
from pathlib import Path

from aidlc_review.review.run.api import ReviewRequest, run_review
from tests.review.workspace import CLEAN, PYPROJECT, UNIT, findings_doc, git, make_workspace

APP = "src/orders/app.py"


def _unit_branch_with_a_committed_dependency(tmp_path: Path) -> tuple[Path, str]:
    """A repository whose unit branch already committed ``httpx`` in ``pyproject.toml``;
    returns it and the branch point."""
    ws = make_workspace(tmp_path / "ws", {APP: CLEAN}, claims=[APP, "pyproject.toml"])
    point = subprocess.run(
        ["git", "-C", str(ws), "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()
    git(ws, "checkout", "-q", "-b", f"bolt-0000abcd_{UNIT}")
    added = PYPROJECT.replace(
        'version = "0.1.0"\n', 'version = "0.1.0"\ndependencies = ["httpx>=0.27"]\n'
    )
    (ws / "pyproject.toml").write_text(added)
    git(ws, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qam", "unit")
    return ws, point


def test_a_dependency_committed_on_the_unit_branch_is_judged_against_the_branch_point(
    tmp_path: Path,
) -> None:
    ws, point = _unit_branch_with_a_committed_dependency(tmp_path)

    outcome = run_review(ReviewRequest(workspace=ws, unit=UNIT, base_revision=point))

    assert outcome.verdict == "NOT-READY"
    found = [
        (f["path"], f["severity"], f["finding"])
        for f in findings_doc(ws)["passes"][0]["findings"]
        if f["checks"] == ["dependencies"]
    ]
    assert found == [
        (
            "pyproject.toml",
            "major",
            "added dependency httpx>=0.27 (project dependencies), not on the approved list",
        )
    ]
