"""The verdict rule, in one place: NOT-READY iff an open critical or major finding that no
waiver in force covers (``waived``: the fingerprints of those, see ``review.waivers``)."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Final

from aidlc_review.review.models import Finding, Verdict

READY: Final = "READY"
NOT_READY: Final = "NOT-READY"


def decide(findings: Iterable[Finding], waived: Collection[str] = ()) -> Verdict:
    return NOT_READY if blocking(findings, waived) else READY


def blocking(findings: Iterable[Finding], waived: Collection[str] = ()) -> list[Finding]:
    return [f for f in findings if f.blocking and f.fingerprint not in waived]
