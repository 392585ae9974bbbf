"""``review.record.proof_memo``: a gate on bytes this machine proved answers without running
the sensors again; a changed byte, a forged memo or a tampered record is recomputed or refused."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from aidlc_review.review.inputs.paths import RecordPaths
from aidlc_review.review.record import recompute
from aidlc_review.review.record.proof import prove_unit
from aidlc_review.review.record.proof_memo import memo_key
from aidlc_review.review.record.seal import ForgedState
from aidlc_review.sensors.cache import default_cache_dir
from tests.review.workspace import (
    CLEAN,
    LINT_ERROR,
    UNIT,
    counted_calls,
    reviewed_workspace,
    write,
)

APP = "src/orders/app.py"


@pytest.fixture
def runs(monkeypatch) -> list[bool]:
    """One entry per time the sensors really ran again (the real recomputation, counted)."""
    return counted_calls(monkeypatch, recompute, "recompute_findings")


def _reviewed(tmp_path: Path, source: str, code: int) -> RecordPaths:
    return RecordPaths.resolve(reviewed_workspace(tmp_path / "ws", {APP: source}, code), UNIT)


def test_a_second_proof_of_unchanged_bytes_does_not_run_the_sensors_again(
    tmp_path, capsys, runs
) -> None:
    paths = _reviewed(tmp_path, CLEAN, 0)
    first = prove_unit(paths)
    second = prove_unit(paths)
    assert len(runs) == 1
    assert first.ready and second.ready
    assert second.verdict == first.verdict and second.unproven == first.unproven


def test_a_memo_keeps_a_blocking_finding_blocking(tmp_path, capsys, runs) -> None:
    paths = _reviewed(tmp_path, LINT_ERROR, 1)
    first = prove_unit(paths)
    second = prove_unit(paths)
    assert len(runs) == 1
    assert [f.id for f in second.blocking] == [f.id for f in first.blocking] != []
    assert not second.ready


def test_any_byte_git_can_see_changes_the_key(tmp_path, capsys) -> None:
    paths = _reviewed(tmp_path, CLEAN, 0)
    before = memo_key(paths, None, None, None, True)
    write(paths.workspace / "tests" / "helper.py", "VALUE = 1\n")  # untracked, not ignored
    after = memo_key(paths, None, None, None, True)
    assert before is not None and after is not None and before != after
    assert memo_key(paths, "main", None, None, True) != after  # another base
    assert memo_key(paths, None, None, None, False) != after  # the tests' sensor left out


def test_a_changed_unclaimed_byte_is_never_answered_from_the_memo(tmp_path, capsys, runs) -> None:
    paths = _reviewed(tmp_path, CLEAN, 0)
    assert prove_unit(paths).ready
    pyproject = paths.workspace / "pyproject.toml"
    write(pyproject, pyproject.read_text() + "\n")
    assert not prove_unit(paths).ready  # drift since the stage entry, as before the memo
    assert len(runs) == 1


def test_a_changed_claimed_byte_is_stale_and_never_answered_from_the_memo(
    tmp_path, capsys, runs
) -> None:
    paths = _reviewed(tmp_path, CLEAN, 0)
    assert prove_unit(paths).ready
    write(paths.workspace / APP, CLEAN + "import os\n")
    proof = prove_unit(paths)
    assert not proof.ready and proof.stale
    write(paths.workspace / APP, CLEAN)  # the proven bytes again: the memo may answer
    assert prove_unit(paths).ready
    assert len(runs) == 1


def test_a_forged_memo_is_a_miss_and_the_sensors_run_again(tmp_path, capsys, runs) -> None:
    paths = _reviewed(tmp_path, LINT_ERROR, 1)
    assert not prove_unit(paths).ready
    db = sqlite3.connect(default_cache_dir() / "results.sqlite3")
    with db:  # an agent rewrites the memo to hold no finding, keeping the old MAC
        rows = db.execute("SELECT key, value FROM entries WHERE key LIKE 'proof-memo/%'")
        for key, value in rows.fetchall():
            tag, _, _ = value.partition(":")
            forged = '{"deferred": [], "findings": [], "not_run": [], "understated": []}'
            db.execute("UPDATE entries SET value = ? WHERE key = ?", (f"{tag}:{forged}", key))
    db.close()
    proof = prove_unit(paths)
    assert len(runs) == 2
    assert proof.blocking and not proof.ready


def test_a_tampered_record_is_refused_before_any_memo_is_read(tmp_path, capsys, runs) -> None:
    paths = _reviewed(tmp_path, CLEAN, 0)
    prove_unit(paths)
    text = paths.findings.read_text().replace('"READY"', '"NOT-READY"', 1)
    paths.findings.write_text(text)
    with pytest.raises(ForgedState):
        prove_unit(paths)
    assert len(runs) == 1


def test_outside_git_there_is_no_memo(tmp_path, capsys) -> None:
    paths = _reviewed(tmp_path, CLEAN, 0)
    (paths.workspace / ".git").rename(paths.workspace.parent / "moved-git")
    assert memo_key(paths, None, None, None, True) is None


def test_a_changed_review_plan_changes_the_key_even_where_git_cannot_see_it(
    tmp_path, capsys
) -> None:
    paths = _reviewed(tmp_path, CLEAN, 0)
    harness = tmp_path / "outside" / "harness"
    (harness / "stages").mkdir(parents=True)
    write(harness / "tools" / "data" / "review-plan.json", "{}\n")
    before = memo_key(paths, None, None, harness, True)
    write(harness / "tools" / "data" / "review-plan.json", '{"stages": []}\n')
    assert memo_key(paths, None, None, harness, True) != before


def test_the_memo_names_the_plan_files_the_harness_names() -> None:
    from aidlc_review.harness.review_plan import GRAPH_PATH, LEDGER_PATH, PLAN_PATH
    from aidlc_review.review.record.proof_memo import PLAN_FILES

    assert PLAN_FILES == (PLAN_PATH, LEDGER_PATH, GRAPH_PATH)
