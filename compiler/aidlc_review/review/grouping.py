"""Sensor hits -> findings: one per (path, rule) holding every line, one per defect.

A tool reports a rule once per line; the review keeps every one of those lines
(``locations``) in one finding instead of keeping one and dropping the rest. The
same rule code on the same file from two sensors (ruff's ``S608`` from ``linter``
and from ``security``) is one defect: one finding naming both sensors. Hits
without a line stay one finding each, as the sensor identified them.

The ID follows the (path, rule) key; the fingerprint (what a waiver binds to) is
the set of distinct hits, line numbers left out: moving code or repeating a hit
keeps it, a hit with new content changes it.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import replace

from aidlc_review.review.models import Location
from aidlc_review.review.observation import Grouped, Observation

_RANK = {"critical": 0, "major": 1, "minor": 2}
_AT_LINE = re.compile(r" at line \d+(?=\.?$)")


def group_key(path: str, rule: str | None, check: str | None) -> str:
    """What keeps a sensor finding's ID: its file and rule (not its wording or lines)."""
    return "\x1f".join(("sensor-group", path, rule or f"{check}:"))


def _content_print(key: str, hit_prints: tuple[str, ...]) -> str:
    digest = hashlib.sha256("\x1e".join((key, *hit_prints)).encode())
    return "sha256:" + digest.hexdigest()[:32]


def parse_location(location: str | None) -> Location | None:
    if not location:
        return None
    start, _, end = location.partition("-")
    return Location(line=int(start), end_line=int(end) if end else None)


def group_hits(hits: Sequence[Observation]) -> list[Observation]:
    """Sensor observations with a line grouped per (path, rule); anything else unchanged."""
    groups: dict[tuple[str, str], list[Observation]] = {}
    rest: list[Observation] = []
    for obs in hits:
        if obs.source == "sensor" and obs.location:
            key = (obs.path, obs.rule or f"{obs.check}:")
            groups.setdefault(key, []).append(obs)
        else:
            rest.append(obs)
    return [*rest, *(_one(members) for members in groups.values())]


def _one(members: list[Observation]) -> Observation:
    ordered = sorted(
        members,
        key=lambda o: (_line(o.location), _RANK[o.severity], o.check or "", o.finding),
    )
    first = ordered[0]
    worst = min(ordered, key=lambda o: (_RANK[o.severity], o.check or ""))
    locations = _locations(ordered)
    checks = tuple(sorted({o.check for o in ordered if o.check}))
    key = group_key(first.path, first.rule, first.check)
    hit_prints = tuple(sorted({o.fingerprint for o in ordered}))
    return replace(
        first,
        severity=worst.severity,
        category=worst.category,
        evidence=_evidence(ordered, locations),
        recommendation=worst.recommendation,
        fingerprint=_content_print(key, hit_prints),
        check=checks[0] if checks else None,
        grouped=Grouped(key, locations, checks, hit_prints),
    )


def _locations(ordered: list[Observation]) -> tuple[Location, ...]:
    """Every line once; a line's message kept only when the messages differ."""
    by_line: dict[tuple[int, int | None], str] = {}
    for obs in ordered:
        place = parse_location(obs.location)
        assert place is not None
        by_line.setdefault((place.line, place.end_line), obs.finding)
    differ = len(set(by_line.values())) > 1
    return tuple(
        Location(line=line, end_line=end, message=message if differ else None)
        for (line, end), message in sorted(by_line.items(), key=lambda item: item[0][0])
    )


def _evidence(ordered: list[Observation], locations: tuple[Location, ...]) -> str:
    said = dict.fromkeys(_AT_LINE.sub("", o.evidence).rstrip(".") for o in ordered)
    text = "; ".join(said)
    if len(locations) == 1:
        return f"{text} at line {locations[0].line}."
    return f"{text} at {len(locations)} lines (see locations)."


def _line(location: str | None) -> int:
    return int(location.split("-")[0]) if location else 0
