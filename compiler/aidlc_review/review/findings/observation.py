"""One finding as seen in a pass, before the ledger gives it an ID."""

from __future__ import annotations

from dataclasses import dataclass

from aidlc_review.review.record.models import Location, Source
from aidlc_review.severity import Severity


@dataclass(frozen=True)
class Grouped:
    """What grouping a sensor's hits per (path, rule) keeps of each hit."""

    key: str  # (path, rule): what keeps the finding's ID from pass to pass
    locations: tuple[Location, ...]
    checks: tuple[str, ...]
    hit_prints: tuple[str, ...]  # the sensors' own per-hit fingerprints (line-independent)


@dataclass(frozen=True)
class Observation:
    severity: Severity
    category: str
    path: str
    location: str | None
    finding: str
    evidence: str
    recommendation: str
    source: Source
    fingerprint: str
    check: str | None = None
    rule: str | None = None
    restates: str | None = None  # the earlier finding's ID the reviewer gave
    grouped: Grouped | None = None
