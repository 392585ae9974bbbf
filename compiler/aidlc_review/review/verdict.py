"""The verdict rule, in one place: NOT-READY iff an open critical or major finding."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from aidlc_review.review.models import Finding, Verdict

READY: Final = "READY"
NOT_READY: Final = "NOT-READY"


def decide(findings: Iterable[Finding]) -> Verdict:
    return NOT_READY if any(f.blocking for f in findings) else READY


def blocking(findings: Iterable[Finding]) -> list[Finding]:
    return [f for f in findings if f.blocking]
