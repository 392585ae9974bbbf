"""Does a findings document agree with itself and with its receipt? Pure rules.

A stored verdict is a cache of a decision the findings and waivers make; a receipt binds
a pass and a digest. When any of them disagree, someone edited the document by hand: that
is tampering, refused with the disagreement named, never resolved in the document's favour.
"""

from __future__ import annotations

from aidlc_review.review.findings.change_filter import Change, classify
from aidlc_review.review.findings.verdict import READY, blocking, decide
from aidlc_review.review.record.models import FindingsDocument, Receipt
from aidlc_review.review.record.receipt import findings_digest
from aidlc_review.review.record.waivers import honoured


def contradictions(
    shown: str,
    doc: FindingsDocument,
    receipt: Receipt | None,
    committed: Receipt | None,
    change: Change | None = None,
) -> list[str]:
    """``shown: what disagrees`` for each inconsistency; ``[]`` when the document holds.

    ``change``: what the unit changed since its given base, from which the findings'
    pre-existing status is derived (the document's own say is not taken)."""
    if receipt is None:
        return []
    found = []
    if doc.receipt != receipt or (committed is not None and committed != receipt):
        found.append(f"{shown}: its receipt differs from the receipt issued with it")
    current = doc.attempt_passes()
    if receipt.attempt != doc.attempt or not current:
        return [
            *found,
            f"{shown}: the receipt is for attempt {receipt.attempt}, "
            f"the record is at attempt {doc.attempt}",
        ]
    last = current[-1]
    if (receipt.number, receipt.verdict) != (last.number, last.verdict):
        found.append(
            f"{shown}: the receipt is for pass {receipt.number} ({receipt.verdict}), "
            f"the record's last pass is {last.number} ({last.verdict})"
        )
    if receipt.findings_digest != findings_digest(doc.passes, doc.waivers):
        found.append(f"{shown}: its findings or waivers changed since the receipt")
    found += _stored_verdicts(shown, doc, change)
    return found


def _stored_verdicts(shown: str, doc: FindingsDocument, change: Change | None) -> list[str]:
    """A stored READY that the document's own findings and waivers do not decide (expiry
    aside: a waiver that lapsed since makes a verdict old, not forged)."""
    last = doc.attempt_passes()[-1]
    # without a known change the verdict is recomputed strictly elsewhere; here the record
    # is only compared with itself, so its own classification is what it must agree with
    findings = classify(last.findings, change) if change is not None else last.findings
    recorded = {w.fingerprint: w for w in doc.waivers}
    held = honoured(findings, recorded)
    if READY not in (doc.verdict, last.verdict) or decide(findings, held) == READY:
        return []
    ids = ", ".join(f"{f.id} {f.severity}" for f in blocking(findings, held))
    return [f"{shown}: stored verdict READY, but its own findings decide NOT-READY ({ids})"]
