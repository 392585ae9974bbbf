"""``review waive``: record a waiver in the unit's findings document, under the unit's lock."""

from __future__ import annotations

from datetime import date

from aidlc_review.errors import InvalidInput
from aidlc_review.review.inputs.paths import RecordPaths
from aidlc_review.review.record.models import FindingsDocument
from aidlc_review.review.record.store import load_unit_document, save_document
from aidlc_review.review.record.waivers import add_waiver, with_waivers
from aidlc_review.review.run.lock import unit_lock


def waive_finding(
    paths: RecordPaths,
    finding_id: str,
    reason: str,
    by: str,
    expires: date | None,
    today: date,
) -> FindingsDocument:
    """Record the waiver in the unit's findings document (and its report), under the lock."""
    with unit_lock(paths, lambda _: None):
        doc = load_unit_document(paths)
        if doc is None:
            elsewhere = paths.findings.is_file()  # a document this machine did not write
            raise InvalidInput(
                f"{paths.display(paths.findings)}: "
                + (
                    "not written by aidlc-review on this machine; a waiver is recorded only "
                    "in a review made here: run `aidlc-review review run` first"
                    if elsewhere
                    else "no review to waive a finding of; run `aidlc-review review run` first"
                )
            )
        updated = add_waiver(doc, finding_id, reason, by, expires, today)
        save_document(paths, updated)
    return updated


def load_with_waivers(paths: RecordPaths, today: date) -> FindingsDocument | None:
    """The unit's document with its verdict decided again under today's waivers; saved when
    that changed it (a waiver expired since). Call it holding the unit's lock."""
    doc = load_unit_document(paths)
    if doc is None:
        return None
    current = with_waivers(doc, today)
    if current.verdict != doc.verdict:
        save_document(paths, current)
    return current
