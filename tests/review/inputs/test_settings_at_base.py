"""A change does not configure its own review: ``[tool.aidlc-review]`` is read as it stands
at the unit's base commit (real git, real ruff, ``review run`` and ``review verify``)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from tests.review.workspace import (
    PYPROJECT,
    UNIT,
    findings_doc,
    git,
    make_workspace,
    review_args,
)

APP = "src/orders/app.py"
UNUSED_IMPORT = (
    '"""Orders."""\n\nimport os\n\n\ndef total(prices: list[int]) -> int:\n    return 0\n'
)
SILENCED = f'{PYPROJECT}\n[tool.aidlc-review.severity.rules]\nF401 = "minor"\n'
CLEAN = '"""Orders."""\n\n\ndef total(prices: list[int]) -> int:\n    return sum(prices)\n'


def _commit(ws: Path) -> None:
    git(ws, "add", "-A")
    git(ws, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "work")


def severities(ws: Path) -> dict[str, str]:
    return {f["rule"]: f["severity"] for f in findings_doc(ws)["passes"][-1]["findings"]}


def verify_ready(ws: Path) -> int:
    return main(["review", "verify", "--workspace", str(ws), "--unit", UNIT, "--ready"])


def head(ws: Path) -> str:
    done = subprocess.run(["git", "-C", str(ws), "rev-parse", "HEAD"], capture_output=True)
    return done.stdout.decode().strip()


@pytest.mark.parametrize("committed", [False, True], ids=["in-the-worktree", "committed"])
def test_a_unit_that_lowers_a_severity_in_its_claimed_pyproject_is_judged_by_the_base_table(
    tmp_path: Path, capsys, committed: bool
) -> None:
    """Uncommitted, the base is HEAD; committed (HEAD moved), the base is the one given."""
    ws = make_workspace(tmp_path / "ws", {APP: CLEAN}, claims=[APP, "pyproject.toml"])
    base = head(ws)
    (ws / APP).write_text(UNUSED_IMPORT)
    (ws / "pyproject.toml").write_text(SILENCED)  # the agent tunes its own review
    if committed:
        _commit(ws)

    assert main(review_args(ws, *(["--base", base] if committed else []))) == 1
    assert severities(ws) == {"F401": "major"}
    err = capsys.readouterr().err
    assert "[tool.aidlc-review] differs from the unit's base" in err
    assert "the review uses the table at the base" in err
    assert verify_ready(ws) == 1  # the gate's recomputation reads the base's table too


def test_a_table_already_on_the_base_is_the_one_in_force(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", {APP: CLEAN}, claims=[APP])
    (ws / "pyproject.toml").write_text(SILENCED)  # the team's own choice, on the base
    _commit(ws)
    (ws / APP).write_text(UNUSED_IMPORT)

    assert main(review_args(ws)) == 0
    assert severities(ws) == {"F401": "minor"}
    assert verify_ready(ws) == 0


def test_bad_input_in_the_workspace_table_is_still_refused_before_anything_runs(
    tmp_path: Path, capsys
) -> None:
    ws = make_workspace(tmp_path / "ws", {APP: CLEAN}, claims=[APP, "pyproject.toml"])
    (ws / "pyproject.toml").write_text(f'{PYPROJECT}\n[tool.aidlc-review]\ntest-comand = "x"\n')

    assert main(review_args(ws)) == 2
    assert "test-comand" in capsys.readouterr().err
    assert not (ws / "aidlc-docs" / "construction" / UNIT / "code-review").exists()
