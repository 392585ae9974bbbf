"""The code-review gate: Approve | Request Changes, the two options Construction gates have.

Approval needs a receipt for the current attempt that still holds; Request
Changes starts a new attempt (fresh pass budget, earlier passes kept). Every
decision records when (UTC) and who (``--by``, else git's user.email, else the OS user).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from aidlc_review.errors import EXIT_FAILED, AidlcError, InvalidInput
from aidlc_review.review.findings.verdict import READY
from aidlc_review.review.inputs.paths import RecordPaths
from aidlc_review.review.record.audit import decider, utc_now
from aidlc_review.review.record.models import FindingsDocument, GateDecision
from aidlc_review.review.record.proof import Proof, prove_unit
from aidlc_review.review.record.store import read_recorded, save_document
from aidlc_review.review.record.waivers import with_waivers
from aidlc_review.review.run.engine import UNJUDGED
from aidlc_review.review.run.lock import unit_lock

DECISIONS = ("approve", "request-changes")


class GateRefused(AidlcError):
    """Approval refused: the receipt is missing or stale (a result, exit 1)."""

    exit_code = EXIT_FAILED


@dataclass(frozen=True)
class GateOutcome:
    decision: str
    attempt: int  # the attempt the decision applies to
    next_attempt: int
    verdict: str
    open_findings: list[dict[str, Any]]
    waived: list[str] = field(default_factory=list)  # ids of open findings a waiver covers
    unjudged: str | None = None  # what no language check took ("no linter ... ran for ...")


def decide_gate(
    workspace: Path,
    unit: str | None,
    decision: str,
    *,
    note: str | None = None,
    record: Path | None = None,
    manifest: Path | None = None,
    by: str | None = None,
    harness: Path | None = None,
) -> GateOutcome:
    if decision not in DECISIONS:
        raise InvalidInput(f"gate decision {decision!r}: must be one of {', '.join(DECISIONS)}")
    paths = RecordPaths.resolve(workspace, unit, record, manifest)
    with unit_lock(paths, lambda _: None):
        doc = _own_document(paths)
        attempt = doc.attempt
        stamp = {"at": utc_now(), "by": decider(paths.workspace, by)}
        waived: list[str] = []
        if decision == "approve":
            proof = prove_unit(paths, harness=harness)
            doc, waived = _approved(doc, paths, proof, note, stamp), sorted(proof.waived)
        else:
            doc = _changes_requested(doc, note, stamp)
        save_document(paths, doc, report=decision != "approve")  # the reviewed bytes stay
    return GateOutcome(
        decision,
        attempt,
        doc.attempt,
        doc.verdict,
        [f.model_dump(mode="json") for f in doc.open_findings()],
        waived,
        next((c.reason for c in doc.checks if c.name == UNJUDGED), None),
    )


def _own_document(paths: RecordPaths) -> FindingsDocument:
    """The document a decision is recorded in: only one this machine's engine sealed (a
    decision saved into a document from elsewhere would seal what nobody proved)."""
    shown = paths.display(paths.findings)
    found = read_recorded(paths)
    if found is None:
        raise GateRefused(f"{shown}: no review to decide on; run `aidlc-review review run` first")
    if not found.sealed_here:
        raise GateRefused(
            f"{shown}: not written by aidlc-review on this machine (a teammate's, CI's or a "
            "merged worktree's record); a gate decides only on a review made here: run "
            "`aidlc-review review run` (it sets that record aside), or `review verify --ready` "
            "to check it"
        )
    return found.doc


def _approved(
    doc: FindingsDocument,
    paths: RecordPaths,
    proof: Proof,
    note: str | None,
    stamp: dict[str, str],
) -> FindingsDocument:
    doc = with_waivers(doc, date.today())  # an expired waiver blocks again
    if doc.receipt is None or doc.receipt.attempt != doc.attempt:
        raise GateRefused(
            f"{paths.display(paths.findings)}: attempt {doc.attempt} has no "
            "receipt to approve; run `aidlc-review review run` first"
        )
    if proof.reasons:
        lines = "\n".join(f"  {reason}" for reason in proof.reasons)
        raise GateRefused(
            f"approval refused: the review no longer matches the source:\n{lines}\n"
            "run `aidlc-review review run` again (or request changes)"
        )
    if proof.verdict != READY:
        lines = "\n".join(f"  {f.id} {f.severity} {f.path}: {f.finding}" for f in proof.blocking)
        raise GateRefused(
            f"approval refused: the verdict recomputed now is {proof.verdict}; open blocking "
            f"findings:\n{lines}\nrepair and run `aidlc-review review run` again, or request "
            "changes"
        )
    if any(g.attempt == doc.attempt and g.decision == "approve" for g in doc.gate):
        return doc
    decision = GateDecision(
        attempt=doc.attempt,
        decision="approve",
        note=note,
        receipt_fingerprint=doc.receipt.unit_source_fingerprint,
        **stamp,
    )
    return doc.model_copy(update={"gate": [*doc.gate, decision]})


def _changes_requested(
    doc: FindingsDocument, note: str | None, stamp: dict[str, str]
) -> FindingsDocument:
    decision = GateDecision(
        attempt=doc.attempt,
        decision="request-changes",
        note=note,
        receipt_fingerprint=(doc.receipt.unit_source_fingerprint if doc.receipt else None),
        **stamp,
    )
    return doc.model_copy(
        update={
            "gate": [*doc.gate, decision],
            "attempt": doc.attempt + 1,
            "verdict": "NOT-READY",
            "receipt": None,
        }
    )
