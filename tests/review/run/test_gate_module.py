"""Spec of ``review.run.gate``: approve only a fresh READY receipt; request changes opens next."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from aidlc_review.errors import EXIT_FAILED, InvalidInput
from aidlc_review.review.run.gate import GateOutcome, GateRefused, decide_gate
from tests.review.workspace import (
    CLEAN,
    LINT_ERROR,
    UNIT,
    findings_doc,
    make_workspace,
    review_args,
    write,
)

FINDINGS = f"aidlc-docs/construction/{UNIT}/code-review/code-review-findings.json"
UTC = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


def reviewed(tmp_path: Path, source: str = CLEAN, verdict: int = 0) -> Path:
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": source})
    assert main(review_args(ws)) == verdict
    return ws


def test_a_decision_other_than_the_two_options_is_bad_input(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput) as refused:
        decide_gate(tmp_path / "not-even-a-workspace", UNIT, "merge")
    assert str(refused.value) == "gate decision 'merge': must be one of approve, request-changes"


def test_a_unit_never_reviewed_has_nothing_to_decide_on(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": CLEAN})
    for decision in ("approve", "request-changes"):
        with pytest.raises(GateRefused) as refused:
            decide_gate(ws, UNIT, decision)
        assert str(refused.value) == (
            f"{FINDINGS}: no review to decide on; run `aidlc-review review run` first"
        )
        assert refused.value.exit_code == EXIT_FAILED
    assert not (ws / FINDINGS).exists()


def test_approving_a_ready_review_records_one_decision_however_often_it_is_made(
    tmp_path: Path,
) -> None:
    ws = reviewed(tmp_path)
    outcome = decide_gate(ws, UNIT, "approve", note="ship it", by="  lead@example.invalid ")
    untyped = "no type-check ran for 1 Python file(s) (`src/orders/app.py`)"  # no mypy set up
    assert outcome == GateOutcome("approve", 1, 1, "READY", [], [], untyped)
    [decision] = findings_doc(ws)["gate"]
    receipt = findings_doc(ws)["receipt"]
    assert {k: v for k, v in decision.items() if k != "at"} == {
        "attempt": 1,
        "decision": "approve",
        "note": "ship it",
        "receipt_fingerprint": receipt["unit_source_fingerprint"],
        "by": "lead@example.invalid",
    }
    assert UTC.match(decision["at"])
    assert decide_gate(ws, UNIT, "approve", by="someone-else") == outcome
    assert findings_doc(ws)["gate"] == [decision]


def test_request_changes_opens_the_next_attempt_with_no_receipt_to_approve(
    tmp_path: Path,
) -> None:
    ws = reviewed(tmp_path)
    fingerprint = findings_doc(ws)["receipt"]["unit_source_fingerprint"]
    outcome = decide_gate(ws, UNIT, "request-changes", note="rename total", by="lead")
    untyped = "no type-check ran for 1 Python file(s) (`src/orders/app.py`)"  # no mypy set up
    assert outcome == GateOutcome("request-changes", 1, 2, "NOT-READY", [], [], untyped)
    doc = findings_doc(ws)
    assert (doc["attempt"], doc["verdict"], doc["receipt"]) == (2, "NOT-READY", None)
    assert len(doc["passes"]) == 1  # the earlier pass is kept
    with pytest.raises(GateRefused) as refused:
        decide_gate(ws, UNIT, "approve")
    assert str(refused.value) == (
        f"{FINDINGS}: attempt 2 has no receipt to approve; run `aidlc-review review run` first"
    )
    # asked again with no receipt in between: a third attempt, bound to no receipt
    assert decide_gate(ws, UNIT, "request-changes", by="lead").next_attempt == 3
    gate = findings_doc(ws)["gate"]
    assert [(g["attempt"], g["decision"], g["receipt_fingerprint"], g["note"]) for g in gate] == [
        (1, "request-changes", fingerprint, "rename total"),
        (2, "request-changes", None, None),
    ]


def test_a_record_this_machine_did_not_seal_is_decided_on_by_nobody(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = reviewed(tmp_path)
    before = (ws / FINDINGS).read_bytes()
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "another-machine"))
    for decision in ("approve", "request-changes"):
        with pytest.raises(GateRefused) as refused:
            decide_gate(ws, UNIT, decision)
        assert str(refused.value) == (
            f"{FINDINGS}: not written by aidlc-review on this machine (a teammate's, CI's or a "
            "merged worktree's record); a gate decides only on a review made here: run "
            "`aidlc-review review run` (it sets that record aside), or `review verify --ready` "
            "to check it"
        )
    assert (ws / FINDINGS).read_bytes() == before


def test_approval_waits_for_the_source_the_receipt_bound(tmp_path: Path) -> None:
    ws = reviewed(tmp_path)
    write(ws / "src/orders/app.py", CLEAN + "\nEXTRA = 1\n")
    with pytest.raises(GateRefused) as refused:
        decide_gate(ws, UNIT, "approve")
    assert str(refused.value) == (
        "approval refused: the review no longer matches the source:\n"
        "  src/orders/app.py: claimed file changed since the receipt\n"
        "run `aidlc-review review run` again (or request changes)"
    )
    assert findings_doc(ws)["gate"] == []


def test_a_waiver_on_the_blocking_finding_is_what_lets_approval_through(tmp_path: Path) -> None:
    ws = reviewed(tmp_path, LINT_ERROR, verdict=1)
    with pytest.raises(GateRefused) as refused:
        decide_gate(ws, UNIT, "approve")
    assert str(refused.value).startswith(
        "approval refused: the verdict recomputed now is NOT-READY; open blocking findings:\n"
        "  CR-001 major src/orders/app.py: F401 `os` imported but unused"
    )
    waive = ["review", "waive", "--workspace", str(ws), "--unit", UNIT, "CR-001"]
    assert main([*waive, "--reason", "kept for the plugin loader", "--by", "lead"]) == 0
    outcome = decide_gate(ws, UNIT, "approve", by="lead")
    assert (outcome.decision, outcome.verdict, outcome.waived) == ("approve", "READY", ["CR-001"])
    assert [f["id"] for f in outcome.open_findings] == ["CR-001"]  # waived, still open
    assert [g["decision"] for g in findings_doc(ws)["gate"]] == ["approve"]
