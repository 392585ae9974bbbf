"""The pass history: merge what a pass saw with what earlier passes recorded.

``CR-NNN`` IDs are assigned once per unit and never renumbered. A finding keeps its
ID across passes and attempts:

- a sensor finding is one per (path, defect) holding every line (``review.findings.grouping``),
  so moving code or adding a hit does not make it new; its fingerprint follows what
  the hits say (a waiver covers only what it saw); it is resolved when no sensor
  reports it any more;
- a reviewer finding is kept by the ID the reviewer restates it with, else by path,
  category and reworded text (``review.findings.matching``). It is resolved only when the
  reviewer says so (``resolved`` in the answer, with a reason); one the reviewer does
  not account for stays open, marked ``not_re_examined``.

Nothing is deleted. A finding whose file is no longer claimed stays open (with a
note): a finding cannot be fixed by unclaiming its path.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import cast

from aidlc_review.review.findings.defects import defect_class
from aidlc_review.review.findings.grouping import Changed, group_hits, group_key, parse_location
from aidlc_review.review.findings.matching import pair_by_text
from aidlc_review.review.findings.observation import Grouped, Observation
from aidlc_review.review.record.models import CATEGORIES, Category, Finding, ReviewerAnswer

__all__ = ["Grouped", "Observation", "merge", "reviewer_fingerprint", "reviewer_observations"]
_NUMBERS = re.compile(r"\d+")
_SPACE = re.compile(r"\s+")
_RANK = {"critical": 0, "major": 1, "minor": 2}
UNCLAIMED_NOTE = "(still open: its path is no longer claimed)"


def reviewer_fingerprint(path: str, category: str, text: str) -> str:
    """Identity of a new reviewer finding: path, category and wording with numbers blanked.

    Numbers are blanked because reviewers quote line numbers in the prose too.
    """
    normal = _SPACE.sub(" ", _NUMBERS.sub("#", text)).strip().lower()
    digest = hashlib.sha256("\x1f".join(("reviewer", path, category, normal)).encode())
    return "sha256:" + digest.hexdigest()[:32]


def reviewer_observations(answer: ReviewerAnswer) -> list[Observation]:
    return [
        Observation(
            f.severity,
            f.category,
            f.path,
            f.location,
            f.finding,
            f.evidence,
            f.recommendation,
            "reviewer",
            reviewer_fingerprint(f.path, f.category, f.finding),
            restates=f.id,
        )
        for f in answer.findings
    ]


def resolutions(answer: ReviewerAnswer | None) -> dict[str, str]:
    """Earlier reviewer finding ID -> the reviewer's reason for resolving it."""
    return {r.id: r.reason for r in answer.resolved} if answer else {}


def known_category(category: str, fallback: Category = "maintainability") -> Category:
    return cast(Category, category) if category in CATEGORIES else fallback


def merge(
    history: list[Finding],
    seen: list[Observation],
    attempt: int,
    number: int,
    reviewed: set[str] | None = None,
    resolved: Mapping[str, str] | None = None,
    changed: Changed | None = None,
) -> list[Finding]:
    """The ledger after a pass: every finding ever recorded for the unit, sorted by ID.

    ``history`` is the previous pass's ledger (which already holds every earlier
    finding); ``seen`` is this pass's observations in any order; ``reviewed`` is the
    set of paths this pass covered (None: every path counts as covered); ``resolved``
    maps earlier reviewer findings the reviewer resolved to its reasons; ``changed`` the
    lines the unit changed since its base (where a broken test run is placed).
    """
    observed = _unique(group_hits(seen, changed))
    matched = _match(history, observed)
    next_number = 1 + max((_id_number(f.id) for f in history), default=0)
    current: dict[str, Finding] = {}
    for index, obs in enumerate(observed):
        earlier = matched.get(index)
        if earlier is None:
            finding_id, fingerprint, first_seen = f"CR-{next_number:03d}", obs.fingerprint, number
            next_number += 1
        else:
            # a reworded reviewer finding keeps its first fingerprint (and any waiver)
            fingerprint = obs.fingerprint if obs.grouped else earlier.fingerprint
            finding_id = earlier.id
            reopened = earlier.status == "resolved" or earlier.attempt != attempt
            first_seen = number if reopened else earlier.first_seen
        current[finding_id] = _finding(obs, finding_id, fingerprint, first_seen, attempt)
    unseen = [_unseen(f, reviewed, resolved or {}) for f in history if f.id not in current]
    return sorted([*current.values(), *unseen], key=lambda f: _id_number(f.id))


def _match(history: list[Finding], observed: list[Observation]) -> dict[int, Finding]:
    """Observation index -> the earlier finding it is: by restated ID, by fingerprint
    (a grouped finding's per-hit fingerprints included), then by reworded text."""
    by_id = {f.id: f for f in history}
    by_print = {f.fingerprint: f for f in history}
    by_key = {_group_key(f): f for f in history if f.source == "sensor" and _grouped(f)}
    pairs: dict[int, Finding] = {}
    used: set[str] = set()
    for index, obs in enumerate(observed):
        earlier = by_id.get(obs.restates or "")
        if earlier is not None and earlier.id not in used:
            pairs[index] = earlier
            used.add(earlier.id)
    for index, obs in enumerate(observed):
        prints = [obs.fingerprint, *(obs.grouped.hit_prints if obs.grouped else ())]
        earlier = by_key.get(obs.grouped.key) if obs.grouped else None
        earlier = earlier or next((by_print[p] for p in prints if p in by_print), None)
        if index not in pairs and earlier is not None and earlier.id not in used:
            pairs[index] = earlier
            used.add(earlier.id)
    new = [i for i, obs in enumerate(observed) if i not in pairs and obs.source == "reviewer"]
    old = [f for f in history if f.source == "reviewer" and f.id not in used]
    texts = pair_by_text(
        [(observed[i].path, observed[i].category, observed[i].finding) for i in new],
        [(f.path, f.category, f.finding) for f in old],
    )
    pairs.update({new[a]: old[b] for a, b in texts.items()})
    return pairs


def _group_key(finding: Finding) -> str:
    return group_key(finding.path, finding.rule, finding.check)


def _grouped(finding: Finding) -> bool:
    """Was it made by ``group_hits`` (so its key, not its fingerprint, is its identity)?"""
    return bool(finding.locations) or defect_class(finding.rule, finding.check) is not None


def _unseen(finding: Finding, reviewed: set[str] | None, resolved: Mapping[str, str]) -> Finding:
    """A finding this pass did not report: resolved by silence only if a sensor's."""
    if finding.status == "resolved":
        return finding
    if finding.source == "reviewer" and finding.id in resolved:
        update = {"status": "resolved", "resolution": resolved[finding.id]}
        return finding.model_copy(update={**update, "not_re_examined": False})
    if reviewed is not None and finding.source != "runtime" and finding.path:
        if finding.path not in reviewed:
            if finding.evidence.endswith(UNCLAIMED_NOTE):
                return finding
            return finding.model_copy(update={"evidence": f"{finding.evidence} {UNCLAIMED_NOTE}"})
    if finding.source == "reviewer":
        return finding.model_copy(update={"not_re_examined": True})
    return finding.model_copy(update={"status": "resolved"})


def _unique(seen: list[Observation]) -> list[Observation]:
    """One observation per fingerprint; the most severe wins, deterministically."""
    ordered = sorted(seen, key=lambda o: (o.fingerprint, _RANK[o.severity], o.location or ""))
    unique: dict[str, Observation] = {}
    for obs in ordered:
        unique.setdefault(obs.fingerprint, obs)
    # New IDs follow a stable reading order: by path, then location, then text.
    return sorted(unique.values(), key=lambda o: (o.path, _line(o.location), o.finding))


def _finding(
    obs: Observation, finding_id: str, fingerprint: str, first_seen: int, attempt: int
) -> Finding:
    if obs.grouped is not None:
        locations, checks = list(obs.grouped.locations), list(obs.grouped.checks)
    else:
        place = parse_location(obs.location)
        locations, checks = ([place] if place else []), ([obs.check] if obs.check else [])
    return Finding(
        id=finding_id,
        severity=obs.severity,
        category=known_category(obs.category),
        path=obs.path,
        location=obs.location,
        locations=locations,
        finding=obs.finding,
        evidence=obs.evidence,
        recommendation=obs.recommendation,
        status="open",
        source=obs.source,
        check=obs.check,
        checks=checks,
        rule=obs.rule,
        fingerprint=fingerprint,
        first_seen=first_seen,
        attempt=attempt,
    )


def _id_number(finding_id: str) -> int:
    return int(finding_id.split("-", 1)[1])


def _line(location: str | None) -> int:
    return int(location.split("-")[0]) if location else 0
