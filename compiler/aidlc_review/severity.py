"""Severities and the verdict rule, defined once for every layer.

A finding blocks approval iff it is open (not resolved, not pre-existing), its severity is
in ``BLOCKING`` and no waiver in force covers it (``blocks_verdict``). The review's
verdict (``review.findings.verdict``), the findings-schema sensor's consistency check, CI summaries
and Bolt all take the rule from here.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Final, Literal

Severity = Literal["critical", "major", "minor"]
SEVERITIES: Final = ("critical", "major", "minor")
BLOCKING: Final[frozenset[str]] = frozenset({"critical", "major"})


def blocks(severity: str) -> bool:
    """Whether a finding of this severity blocks approval (while open and not waived)."""
    return severity in BLOCKING


READY: Final = "READY"
NOT_READY: Final = "NOT-READY"


def blocks_verdict(status: str, severity: str, fingerprint: str, waived: Collection[str]) -> bool:
    """The verdict rule for one finding: NOT-READY iff any finding makes this true."""
    return status == "open" and blocks(severity) and fingerprint not in waived
