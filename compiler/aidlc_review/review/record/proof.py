"""The one verification: is this unit's review, recomputed from the bytes, approvable now?

Every path that approves or merges calls ``prove_unit`` (DESIGN.md §9): ``review gate``,
``review verify`` (``--ready`` for merge checks), the pre-commit verify hook, the CI
aggregate ``review summary``, Bolt's finalize and gate. Nothing stored decides: the
claimed bytes are hashed again against the receipt, the sensors run again on them
(``review.record.recompute``), the verdict is decided again from the findings and the waivers in
force with the not-waivable rule applied, and a document whose stored verdict, receipt or
digest disagrees with that is refused as tampered.

Provenance: a document this machine's engine sealed is "sealed here". Any other (a
teammate's, CI's, a worktree's merged in) is proven only as far as the bytes allow: the
claims and the sensors are checked, its reviewer findings are counted as they stand (an
open blocking one blocks), and what cannot be proven is said (``unproven``): its waivers
do not count, and unclaimed changes since its stage entry are not checked here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from aidlc_review.review.findings.change_filter import (
    Change,
    classify,
    configured_change,
    unit_change,
)
from aidlc_review.review.findings.evidence import checked_evidence, reading
from aidlc_review.review.findings.verdict import NOT_READY, READY, decide
from aidlc_review.review.inputs.paths import RecordPaths
from aidlc_review.review.record.consistency import contradictions
from aidlc_review.review.record.freshness import stale_reasons
from aidlc_review.review.record.models import Finding, FindingsDocument, Receipt, Waiver
from aidlc_review.review.record.seal import was_sealed
from aidlc_review.review.record.store import Recorded, load_receipt, read_recorded
from aidlc_review.review.record.waivers import honoured, in_force
from aidlc_review.typed_load import parse_json

if TYPE_CHECKING:
    from aidlc_review.review.record.recompute import Recomputed


@dataclass(frozen=True)
class Proof:
    unit: str | None
    verdict: str  # recomputed now: READY only when nothing open blocks
    recorded: bool = True  # a findings document exists
    claimed: str | None = None  # the verdict the document states (a cache, never an answer)
    sealed_here: bool = True
    stale: list[str] = field(default_factory=list)  # the bytes no longer match the receipt
    tampered: list[str] = field(default_factory=list)  # the record disagrees with itself
    # a record from elsewhere that a sensor could not check here: never READY (a freshness
    # check, such as the pre-commit hook, is not an approval and does not count these)
    unprovable: list[str] = field(default_factory=list)
    blocking: list[Finding] = field(default_factory=list)  # open, blocking, not waived
    waived: dict[str, Waiver] = field(default_factory=dict)  # finding id -> waiver honoured
    unproven: list[str] = field(default_factory=list)  # what could not be checked

    @property
    def reasons(self) -> list[str]:
        """Why nothing may be approved or merged on this record (``path: reason``)."""
        return sorted({*self.stale, *self.tampered})

    @property
    def ready(self) -> bool:
        return self.recorded and not self.reasons and not self.unprovable and self.verdict == READY


def prove_unit(
    paths: RecordPaths,
    *,
    harness: Path | None = None,
    today: date | None = None,
    recompute: bool = True,
    document: bytes | None = None,
    thorough: bool = True,
) -> Proof:
    """The unit's review proven from the bytes (``ForgedState`` when a seal is broken).

    ``document``: a findings document from elsewhere (a CI job's artifact) to prove against
    this workspace instead of the one in the record. ``recompute=False`` skips the sensors
    (``review status``: where things stand, not an approval); ``thorough=False`` leaves
    the sensors that run the project's tests to the approving gates (``review verify``
    without ``--ready``, the pre-commit hook)."""
    found = read_recorded(paths) if document is None else _foreign(paths, document)
    if found is None:
        return _unrecorded(paths)
    doc, here = found.doc, found.sealed_here
    receipt = load_receipt(paths) if here else doc.receipt
    stale = stale_reasons(paths, receipt, drift=here) if here or receipt else _no_receipt(paths)
    # an artifact's document brings its own receipt; the record's file belongs to another
    committed = _receipt_file(paths) if document is None else None
    # pre-existing or not is derived from the diff here, never read from the document
    change = _change(paths, receipt, here)
    tampered = contradictions(paths.display(paths.findings), doc, receipt, committed, change)
    current = doc.attempt_passes()
    findings = classify(current[-1].findings, change) if current else []
    unproven = [] if here else _foreign_limits(paths, doc)
    unprovable = _unclassified(paths, current[-1].findings if current else [], change)
    if recompute and receipt is not None and current and not stale and not tampered:
        again = _recomputed(paths, doc, receipt, harness, here, thorough, change)
        findings, tampered = again.findings, again.understated
        # a record this machine sealed keeps what a sensor that cannot run here recorded;
        # one from elsewhere has nothing else vouching for it: never READY on its word
        (unproven if here else unprovable).extend(again.not_run)
        unproven.extend(again.deferred)
    # whether a reviewer's finding is backed by the code is derived from the bytes here,
    # never read from the record (a record cannot call a backed finding unverified)
    findings = checked_evidence(findings, reading(paths.workspace))
    held = honoured(findings, in_force(doc, today or date.today())) if here else {}
    verdict = decide(findings, held) if receipt is not None else NOT_READY
    return Proof(
        unit=paths.unit,
        verdict=verdict,
        claimed=doc.verdict,
        sealed_here=here,
        stale=stale,
        tampered=tampered,
        unprovable=unprovable,
        blocking=[f for f in findings if f.blocking and f.fingerprint not in held],
        waived={
            f.id: held[f.fingerprint] for f in findings if f.blocking and f.fingerprint in held
        },
        unproven=unproven,
    )


def _recomputed(
    paths: RecordPaths,
    doc: FindingsDocument,
    receipt: Receipt,
    harness: Path | None,
    here: bool,
    thorough: bool,
    change: Change | None,
) -> Recomputed:
    """The sensors run again on the claimed bytes; for a record sealed here, this machine's
    sealed memo of that very recomputation when not one byte git can see has changed
    (``review.record.proof_memo``). A record from elsewhere is always recomputed."""
    from aidlc_review.review.record.proof_memo import memo_key, recall, remember
    from aidlc_review.review.record.recompute import recompute_findings

    base = _base(paths, here)
    key = memo_key(paths, base, change, harness, thorough) if here else None
    known = recall(key) if key is not None else None
    if known is not None:
        return known
    again = recompute_findings(paths, doc, receipt, harness, base, thorough, change)
    if key is not None:
        remember(key, again)
    return again


def _foreign(paths: RecordPaths, document: bytes) -> Recorded:
    doc = parse_json(FindingsDocument, document, str(paths.findings))
    return Recorded(doc, False, document)


def _unrecorded(paths: RecordPaths) -> Proof:
    """No findings document: not reviewed, or (once reviewed) its record was deleted."""
    shown = paths.display(paths.findings)
    reviewed = paths.receipt.is_file() or paths.baseline.is_file()
    if reviewed or was_sealed(paths, paths.findings):
        deleted = f"{shown}: findings document deleted since the review; nothing is approved"
        return Proof(paths.unit, NOT_READY, recorded=False, stale=[deleted])
    return Proof(paths.unit, NOT_READY, recorded=False, sealed_here=False)


def _no_receipt(paths: RecordPaths) -> list[str]:
    return [f"{paths.display(paths.findings)}: no receipt; run `aidlc-review review run` first"]


def _receipt_file(paths: RecordPaths) -> Receipt | None:
    """The receipt committed beside the findings, parsed (its seal is ``load_receipt``'s)."""
    if not paths.receipt.is_file():
        return None
    return parse_json(Receipt, paths.receipt.read_bytes(), str(paths.receipt), what="receipt")


def _base(paths: RecordPaths, here: bool) -> str | None:
    """The base the pass compared with (its sealed baseline's), so the sensors agree."""
    if not here:
        return None
    from aidlc_review.review.source.baseline import load_baseline

    baseline = load_baseline(paths)
    return baseline.base if baseline is not None else None


def _change(paths: RecordPaths, receipt: Receipt | None, here: bool) -> Change | None:
    """What the unit changed since its base: the one its sealed baseline was given, or for
    a record from elsewhere the workspace's ``base-revision`` (None: no base known here,
    or outside git: then nothing is pre-existing)."""
    if receipt is None:
        return None
    if not here:
        return configured_change(paths.workspace, paths.unit, receipt.files)
    from aidlc_review.review.source.baseline import load_baseline

    return unit_change(paths.workspace, paths.unit, load_baseline(paths), receipt.files)


def _unclassified(paths: RecordPaths, recorded: list[Finding], change: Change | None) -> list[str]:
    """A record that calls findings pre-existing against a base this machine cannot know
    (a teammate's ``--base``): they count as open here, and the record cannot be READY."""
    if change is not None:
        return []
    ids = ", ".join(f.id for f in recorded if f.status == "pre-existing")
    if not ids:
        return []
    return [
        f"{paths.display(paths.findings)}: its pre-existing findings ({ids}) were judged "
        "against a base not known here (set `base-revision` in [tool.aidlc-review]): "
        "they count as open"
    ]


def _foreign_limits(paths: RecordPaths, doc: FindingsDocument) -> list[str]:
    shown = paths.display(paths.findings)
    limits = [
        f"{shown}: written elsewhere (not sealed by aidlc-review on this machine): "
        "its reviewer findings are counted as recorded, not re-examined",
        f"{shown}: unclaimed changes since its stage entry are not checked here "
        "(the stage-entry baseline is the reviewing machine's)",
    ]
    if doc.waivers:
        ids = ", ".join(sorted({w.finding for w in doc.waivers}))
        limits.append(
            f"{shown}: its waivers ({ids}) were recorded elsewhere and cannot be proven "
            "here: they do not count"
        )
    return limits
