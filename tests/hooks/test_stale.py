"""The commit hook's view of every reviewed unit (``hooks.stale``): bytes this machine
already proved answer from its sealed answer; a changed byte is checked in full; a unit
whose code is still being generated is no reason to refuse a commit."""

from __future__ import annotations

from pathlib import Path

import pytest

from aidlc_review.hooks.stale import stale_units
from aidlc_review.review.inputs.paths import RecordPaths
from aidlc_review.review.record import proof
from tests.review.workspace import (
    CLEAN,
    LINT_ERROR,
    UNIT,
    counted_calls,
    make_workspace,
    reviewed_workspace,
    write,
)

APP = "src/orders/app.py"


@pytest.fixture
def checks(monkeypatch) -> list[bool]:
    """One entry per full check (the real ``prove_unit``, counted)."""
    return counted_calls(monkeypatch, proof, "prove_unit")


def _reviewed(tmp_path: Path, source: str, code: int) -> Path:
    return reviewed_workspace(tmp_path / "ws", {APP: source}, code)


def test_a_second_commit_on_proven_bytes_is_answered_without_the_full_check(
    tmp_path, capsys, checks
) -> None:
    ws = _reviewed(tmp_path, CLEAN, 0)
    assert stale_units(ws, None) == {}
    assert stale_units(ws, None) == {}
    assert len(checks) == 1


def test_a_record_tampered_with_after_a_kept_answer_refuses_the_commit(
    tmp_path, capsys, checks
) -> None:
    ws = _reviewed(tmp_path, CLEAN, 0)
    assert stale_units(ws, None) == {}
    findings = RecordPaths.resolve(ws, UNIT).findings
    findings.write_text(findings.read_text().replace('"READY"', '"NOT-READY"', 1))
    assert stale_units(ws, None)[UNIT]


def test_a_claimed_byte_changed_after_a_kept_answer_is_checked_in_full(
    tmp_path, capsys, checks
) -> None:
    ws = _reviewed(tmp_path, CLEAN, 0)
    assert stale_units(ws, None) == {}
    write(ws / APP, CLEAN + "\n# changed\n")
    assert any("claimed file changed" in r for r in stale_units(ws, None)[UNIT])
    assert len(checks) == 2


def test_a_unit_not_reviewed_yet_is_no_reason_to_refuse_a_commit(tmp_path, checks) -> None:
    ws = make_workspace(tmp_path / "ws", {APP: LINT_ERROR})
    assert stale_units(ws, None) == {}
