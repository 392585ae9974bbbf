"""The pass history: merge what a pass saw with what earlier passes recorded.

``CR-NNN`` IDs are assigned once per unit and never renumbered. A finding keeps
its ID across passes (and attempts) by a fingerprint that leaves line numbers
out, so moving code does not make a finding new. A finding not seen again is
marked ``resolved``, never deleted, unless its file is no longer claimed: a
finding cannot be fixed by unclaiming its path, so it stays open (with a note).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import cast

from aidlc_review.review.models import CATEGORIES, Category, Finding, Severity, Source

_NUMBERS = re.compile(r"\d+")
_SPACE = re.compile(r"\s+")
UNCLAIMED_NOTE = "(still open: its path is no longer claimed)"


@dataclass(frozen=True)
class Observation:
    """One finding as seen in this pass, before it has an ID."""

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


def reviewer_fingerprint(path: str, category: str, text: str) -> str:
    """Identity of a reviewer finding: path, category and wording with numbers blanked.

    Numbers are blanked because reviewers quote line numbers in the prose too.
    """
    normal = _SPACE.sub(" ", _NUMBERS.sub("#", text)).strip().lower()
    digest = hashlib.sha256("\x1f".join(("reviewer", path, category, normal)).encode())
    return "sha256:" + digest.hexdigest()[:32]


def known_category(category: str, fallback: Category = "maintainability") -> Category:
    return cast(Category, category) if category in CATEGORIES else fallback


def merge(
    history: list[Finding],
    seen: list[Observation],
    attempt: int,
    number: int,
    reviewed: set[str] | None = None,
) -> list[Finding]:
    """The ledger after a pass: every finding ever recorded for the unit, sorted by ID.

    ``history`` is the previous pass's ledger (which already holds every earlier
    finding); ``seen`` is this pass's observations in any order; ``reviewed`` is the
    set of paths this pass covered (None: every path counts as covered).
    """
    by_print = {f.fingerprint: f for f in history}
    next_number = 1 + max((_id_number(f.id) for f in history), default=0)
    current: dict[str, Finding] = {}
    for obs in _unique(seen):
        earlier = by_print.get(obs.fingerprint)
        if earlier is None:
            finding_id = f"CR-{next_number:03d}"
            next_number += 1
            first_seen = number
        else:
            finding_id = earlier.id
            reopened = earlier.status == "resolved" or earlier.attempt != attempt
            first_seen = number if reopened else earlier.first_seen
        current[obs.fingerprint] = _finding(obs, finding_id, first_seen, attempt)
    unseen = [_unseen(f, reviewed) for f in history if f.fingerprint not in current]
    return sorted([*current.values(), *unseen], key=lambda f: _id_number(f.id))


def _unseen(finding: Finding, reviewed: set[str] | None) -> Finding:
    """A finding this pass did not report: resolved, unless nothing looked at its file."""
    if finding.status == "resolved":
        return finding
    if reviewed is not None and finding.source != "runtime" and finding.path:
        if finding.path not in reviewed:
            if finding.evidence.endswith(UNCLAIMED_NOTE):
                return finding
            return finding.model_copy(update={"evidence": f"{finding.evidence} {UNCLAIMED_NOTE}"})
    return finding.model_copy(update={"status": "resolved"})


def _unique(seen: list[Observation]) -> list[Observation]:
    """One observation per fingerprint; the most severe wins, deterministically."""
    rank = {"critical": 0, "major": 1, "minor": 2}
    ordered = sorted(seen, key=lambda o: (o.fingerprint, rank[o.severity], o.location or ""))
    unique: dict[str, Observation] = {}
    for obs in ordered:
        unique.setdefault(obs.fingerprint, obs)
    # New IDs follow a stable reading order: by path, then location, then text.
    return sorted(unique.values(), key=lambda o: (o.path, _line(o.location), o.finding))


def _finding(obs: Observation, finding_id: str, first_seen: int, attempt: int) -> Finding:
    return Finding(
        id=finding_id,
        severity=obs.severity,
        category=known_category(obs.category),
        path=obs.path,
        location=obs.location,
        finding=obs.finding,
        evidence=obs.evidence,
        recommendation=obs.recommendation,
        status="open",
        source=obs.source,
        check=obs.check,
        rule=obs.rule,
        fingerprint=obs.fingerprint,
        first_seen=first_seen,
        attempt=attempt,
    )


def _id_number(finding_id: str) -> int:
    return int(finding_id.split("-", 1)[1])


def _line(location: str | None) -> int:
    return int(location.split("-")[0]) if location else 0
