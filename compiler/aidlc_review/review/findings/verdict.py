"""The verdict rule, in one place: NOT-READY iff an open critical or major finding that no
waiver in force covers (``waived``: the fingerprints of those, see ``review.record.waivers``)."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Final

from aidlc_review.review.record.models import Finding, Verdict
from aidlc_review.severity import NOT_READY as _NOT_READY
from aidlc_review.severity import READY as _READY
from aidlc_review.severity import blocks_verdict

READY: Final = _READY
NOT_READY: Final = _NOT_READY


def decide(findings: Iterable[Finding], waived: Collection[str] = ()) -> Verdict:
    return NOT_READY if blocking(findings, waived) else READY


def blocking(findings: Iterable[Finding], waived: Collection[str] = ()) -> list[Finding]:
    return [f for f in findings if blocks_verdict(f.status, f.severity, f.fingerprint, waived)]
