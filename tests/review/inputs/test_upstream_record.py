"""Where the review lives in an upstream project: the active intent's record, found without
``--record``, from the main checkout or a Bolt worktree; and the merge check a swarm's
convergence command runs (``verify --ready --unit-from-branch``)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from aidlc_review.errors import InvalidInput
from aidlc_review.review.inputs.intent import active_intent_record
from tests.review.workspace import CLEAN, LINT_ERROR, UNIT, git, make_workspace

INTENT = "aidlc/spaces/default/intents/261201-orders"


def upstream_workspace(root: Path, source: str) -> Path:
    """The usual test workspace with its record moved to where upstream keeps it."""
    ws = make_workspace(root, {"src/orders/app.py": source})
    (ws / INTENT).parent.mkdir(parents=True)
    shutil.move(ws / "aidlc-docs", ws / INTENT)
    (ws / "aidlc/active-space").write_text("default\n")
    (ws / INTENT).parent.joinpath("active-intent").write_text("261201-orders\n")
    git(ws, "add", "-A")
    git(ws, "-c", "user.name=t", "-c", "user.email=t@x.invalid", "commit", "-q", "-m", "intent")
    return ws


def test_the_active_intents_record_is_used_without_record(tmp_path):
    ws = upstream_workspace(tmp_path / "ws", CLEAN)

    assert main(["review", "run", "--workspace", str(ws), "--unit", UNIT]) == 0

    stage = ws / INTENT / "construction" / UNIT / "code-review"
    assert (stage / "code-review.md").is_file()
    assert (stage / "code-review-receipt.json").is_file()
    assert not (ws / "aidlc-docs").exists()


def test_without_cursors_the_only_intent_is_meant(tmp_path):
    ws = upstream_workspace(tmp_path / "ws", CLEAN)
    (ws / "aidlc/active-space").unlink()
    (ws / INTENT).parent.joinpath("active-intent").unlink()

    assert active_intent_record(ws) == ws / INTENT


def test_two_intents_and_no_cursor_is_refused(tmp_path):
    ws = upstream_workspace(tmp_path / "ws", CLEAN)
    (ws / INTENT).parent.joinpath("active-intent").unlink()
    (ws / INTENT).parent.joinpath("261202-other").mkdir()

    with pytest.raises(InvalidInput, match="no active intent is set and there is not exactly one"):
        active_intent_record(ws)


def test_a_bolt_worktree_reads_the_main_checkouts_cursors(tmp_path):
    ws = upstream_workspace(tmp_path / "ws", CLEAN)
    (ws / INTENT).parent.joinpath("261202-other").mkdir()  # so guessing would be ambiguous
    worktree = tmp_path / "wt"
    git(ws, "worktree", "add", "-q", "-b", f"bolt-{UNIT}", str(worktree))

    assert active_intent_record(worktree) == worktree / INTENT


def verify_in(worktree: Path) -> int:
    return main(["review", "verify", "--workspace", str(worktree), "--unit-from-branch", "--ready"])


def test_convergence_check_passes_a_ready_and_fresh_unit(tmp_path):
    ws = upstream_workspace(tmp_path / "ws", CLEAN)
    worktree = tmp_path / "wt"
    git(ws, "worktree", "add", "-q", "-b", f"bolt-{UNIT}", str(worktree))
    assert main(["review", "run", "--workspace", str(worktree), "--unit", UNIT]) == 0

    assert verify_in(worktree) == 0

    (worktree / "src/orders/app.py").write_text(CLEAN + "\n# edited after the review\n")
    assert verify_in(worktree) == 1


def test_convergence_check_fails_a_not_ready_unit(tmp_path, capsys):
    ws = upstream_workspace(tmp_path / "ws", LINT_ERROR)
    worktree = tmp_path / "wt"
    git(ws, "worktree", "add", "-q", "-b", f"bolt-{UNIT}", str(worktree))
    assert main(["review", "run", "--workspace", str(worktree), "--unit", UNIT]) == 1
    capsys.readouterr()

    assert verify_in(worktree) == 1

    assert "the verdict recomputed now is NOT-READY (" in capsys.readouterr().out


def test_unit_from_branch_outside_a_bolt_branch_is_a_usage_error(tmp_path, capsys):
    ws = upstream_workspace(tmp_path / "ws", CLEAN)

    assert verify_in(ws) == 2

    assert "is not on a Bolt branch (bolt-<unit>), but on 'main'" in capsys.readouterr().err
