"""The code-review gate: Approve | Request Changes, the two options Construction gates have.

Approval needs a receipt for the current attempt that still holds; Request
Changes starts a new attempt (fresh pass budget, earlier passes kept). Every
decision records when (UTC) and who (``--by``, else git's user.email, else the OS user).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from aidlc_review.errors import EXIT_FAILED, AidlcError, InvalidInput
from aidlc_review.review.audit import decider, utc_now
from aidlc_review.review.lock import unit_lock
from aidlc_review.review.models import FindingsDocument, GateDecision
from aidlc_review.review.paths import RecordPaths
from aidlc_review.review.store import load_unit_document, save_document
from aidlc_review.review.verdict import READY
from aidlc_review.review.verify import verify_review
from aidlc_review.review.waivers import with_waivers

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


def decide_gate(
    workspace: Path,
    unit: str | None,
    decision: str,
    *,
    note: str | None = None,
    record: Path | None = None,
    manifest: Path | None = None,
    by: str | None = None,
) -> GateOutcome:
    if decision not in DECISIONS:
        raise InvalidInput(f"gate decision {decision!r}: must be one of {', '.join(DECISIONS)}")
    paths = RecordPaths.resolve(workspace, unit, record, manifest)
    with unit_lock(paths, lambda _: None):
        doc = load_unit_document(paths)
        if doc is None:
            raise GateRefused(
                f"{paths.display(paths.findings)}: no review to decide on; "
                "run `aidlc-review review run` first"
            )
        attempt = doc.attempt
        stamp = {"at": utc_now(), "by": decider(paths.workspace, by)}
        if decision == "approve":
            doc = _approved(doc, paths, note, stamp)
        else:
            doc = _changes_requested(doc, note, stamp)
        save_document(paths, doc)
    return GateOutcome(
        decision,
        attempt,
        doc.attempt,
        doc.verdict,
        [f.model_dump(mode="json") for f in doc.open_findings()],
    )


def _approved(
    doc: FindingsDocument, paths: RecordPaths, note: str | None, stamp: dict[str, str]
) -> FindingsDocument:
    doc = with_waivers(doc, date.today())  # an expired waiver blocks again
    if doc.receipt is None or doc.receipt.attempt != doc.attempt:
        raise GateRefused(
            f"{paths.display(paths.findings)}: attempt {doc.attempt} has no "
            "receipt to approve; run `aidlc-review review run` first"
        )
    stale = verify_review(paths.workspace, paths.unit, paths.record, paths.manifest)
    if stale:
        lines = "\n".join(f"  {reason}" for reason in stale)
        raise GateRefused(
            f"approval refused: the review no longer matches the source:\n{lines}\n"
            "run `aidlc-review review run` again (or request changes)"
        )
    if doc.verdict != READY:
        lines = "\n".join(
            f"  {f.id} {f.severity} {f.path}: {f.finding}"
            for f in doc.open_findings()
            if f.blocking
        )
        raise GateRefused(
            f"approval refused: the verdict is {doc.verdict}; open blocking findings:\n{lines}\n"
            "repair and run `aidlc-review review run` again, or request changes"
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
