"""Does a unit's receipt still hold? Only what that question needs is imported here: the
pre-commit hook and CI ask it on every commit, and must not pay for the review's agents,
sensors or templates."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from aidlc_review.review.freshness import stale_reasons
from aidlc_review.review.paths import RecordPaths
from aidlc_review.review.receipt import findings_digest
from aidlc_review.review.store import load_receipt, load_unit_document
from aidlc_review.review.verdict import READY
from aidlc_review.review.waivers import with_waivers


def verify_review(
    workspace: Path,
    unit: str | None,
    record: Path | None = None,
    manifest: Path | None = None,
    ready: bool = False,
) -> list[str]:
    """Why the unit's receipt no longer holds (``path: reason`` lines); ``[]`` when fresh.

    ``ready``: a verdict other than READY is a reason too (for merge checks)."""
    paths = RecordPaths.resolve(workspace, unit, record, manifest)
    receipt = load_receipt(paths)
    reasons = stale_reasons(paths, receipt)
    doc = load_unit_document(paths)
    doc = with_waivers(doc, date.today()) if doc is not None else None
    if receipt is not None and (
        doc is None or findings_digest(doc.passes) != receipt.findings_digest
    ):
        reasons.append(f"{paths.display(paths.findings)}: findings changed since the receipt")
    if ready and (doc is None or doc.verdict != READY):
        verdict = "not reviewed" if doc is None else f"the verdict is {doc.verdict}"
        reasons.append(f"{paths.display(paths.findings)}: {verdict}, not READY")
    return sorted(reasons)
