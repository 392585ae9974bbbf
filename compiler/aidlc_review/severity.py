"""Severities and the rule "critical or major blocks", defined once for every layer.

A finding blocks approval iff it is open, its severity is in ``BLOCKING`` and no waiver
in force covers it (``review.verdict`` applies the waivers); sensors, the review, CI
summaries and Bolt all import the rule from here.
"""

from __future__ import annotations

from typing import Final, Literal

Severity = Literal["critical", "major", "minor"]
SEVERITIES: Final = ("critical", "major", "minor")
BLOCKING: Final[frozenset[str]] = frozenset({"critical", "major"})


def blocks(severity: str) -> bool:
    """Whether a finding of this severity blocks approval (while open and not waived)."""
    return severity in BLOCKING
