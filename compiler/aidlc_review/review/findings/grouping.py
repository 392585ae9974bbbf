"""Sensor hits -> findings: one per (path, defect) holding every line it was seen at.

A tool reports a rule once per line; the review keeps every one of those lines
(``locations``) in one finding instead of keeping one and dropping the rest. What
several sensors or rules report about one defect is one finding naming every sensor
that saw it, at the most severe severity any of them gave: the same rule code from
two sensors (ruff's ``S608`` from ``linter`` and from ``security``), and the rules
``review.findings.defects`` puts in one defect class (detect-secrets' detectors with ``S105``;
``F821`` with mypy's ``name-defined``). A test run broken by one change is one finding
listing the failing tests, placed at the change when the diff shows one file changed.
Hits without a line and outside a class stay one finding each, as the sensor said, unless
several of one rule stand on one file (failing tests whose runner names no line): one finding.

The ID follows the (path, defect) key; the fingerprint (what a waiver binds to) is
the set of distinct hits, line numbers left out: moving code or repeating a hit
keeps it, a hit with new content changes it.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Mapping, Sequence, Set
from dataclasses import replace

from aidlc_review.review.findings.defects import BROKEN_TEST_RUN, UNIT_WIDE, defect_class
from aidlc_review.review.findings.observation import Grouped, Observation
from aidlc_review.review.record.models import Location

_RANK = {"critical": 0, "major": 1, "minor": 2}
_AT_LINE = re.compile(r" at line \d+(?=\.?$)")
_FAILED_TEST = re.compile(
    r"^(?P<head>the targeted test command exited [^:]*: )(?P<test>.+?) failed: "
)
_MISSING_NAME = re.compile(
    r"cannot import name '(\w+)'|name '(\w+)' is not defined|has no attribute '(\w+)'"
)
NAMED_TESTS = 10  # failing tests named in a broken run's finding; the rest are counted
Changed = Mapping[str, Set[int]]


def group_key(path: str, rule: str | None, check: str | None) -> str:
    """What keeps a sensor finding's ID: its file and defect (not its wording or lines)."""
    defect = defect_class(rule, check)
    if defect is None:
        return "\x1f".join(("sensor-group", path, rule or f"{check}:"))
    return "\x1f".join(("sensor-group", "" if defect in UNIT_WIDE else path, f"defect:{defect}"))


def _content_print(key: str, hit_prints: tuple[str, ...]) -> str:
    digest = hashlib.sha256("\x1e".join((key, *hit_prints)).encode())
    return "sha256:" + digest.hexdigest()[:32]


def parse_location(location: str | None) -> Location | None:
    if not location:
        return None
    start, _, end = location.partition("-")
    return Location(line=int(start), end_line=int(end) if end else None)


def group_hits(hits: Sequence[Observation], changed: Changed | None = None) -> list[Observation]:
    """Sensor observations grouped per (path, defect); anything else unchanged.

    ``changed``: the lines the unit changed since its base, per claimed file (None: no
    base), where a broken test run is placed."""
    groups: dict[str, list[Observation]] = {}
    rest: list[Observation] = []
    unlocated = Counter(_unlocated_key(obs) for obs in hits)
    for obs in hits:
        classed = defect_class(obs.rule, obs.check) is not None
        key = _unlocated_key(obs)
        repeated = key is not None and unlocated[key] > 1
        if obs.source == "sensor" and (obs.location or classed or repeated):
            groups.setdefault(group_key(obs.path, obs.rule, obs.check), []).append(obs)
        else:
            rest.append(obs)
    found = [_one(key, members, changed) for key, members in groups.items()]
    return [*rest, *_fold_into_causes(found, changed)]


def _unlocated_key(obs: Observation) -> tuple[str, str | None, str | None] | None:
    """What several unlocated hits of one rule on one file share (failing tests whose runner
    names no line): one finding for them all, as their located kin are; None: not such a hit."""
    if obs.source != "sensor" or obs.location or not obs.path:
        return None
    return (obs.path, obs.rule, obs.check)


def _fold_into_causes(found: list[Observation], changed: Changed | None) -> list[Observation]:
    """A test run broken by a name that is gone (``cannot import name 'x'``, ``name 'x'
    is not defined``, ``has no attribute 'x'``) and the blocking static finding that names
    it (mypy's ``attr-defined``, ruff's ``F821``) are one defect: one finding naming both
    sensors. It stands where the change is: at the static finding when that line is the
    unit's change, else at the run's place (the change, or the unit), so a stale caller
    on an untouched line never becomes a pre-existing finding while the tests fail."""
    for run in [o for o in found if defect_class(o.rule, o.check) == BROKEN_TEST_RUN]:
        names = {n for m in _MISSING_NAME.finditer(run.finding) for n in m.groups() if n}
        cause = next((o for o in found if o is not run and _names_one(o, names)), None)
        if cause is None:
            continue
        kept, gone = (cause, run) if _on_change(cause, changed) else (run, cause)
        found[found.index(kept)] = _joined(kept, gone)
        found.remove(gone)
    return found


def _names_one(obs: Observation, names: set[str]) -> bool:
    if obs.source != "sensor" or _RANK[obs.severity] > _RANK["major"]:
        return False
    return any(f'"{n}"' in obs.finding or f"'{n}'" in obs.finding for n in names)


def _on_change(obs: Observation, changed: Changed | None) -> bool:
    if changed is None:
        return True  # no base: all of it is the unit's change
    lines = changed.get(obs.path, set())
    return any(
        line in lines
        for place in (obs.grouped.locations if obs.grouped else ())
        for line in range(place.line, (place.end_line or place.line) + 1)
    )


def _joined(kept: Observation, gone: Observation) -> Observation:
    """``kept`` with what ``gone`` said about the same defect, at the worse severity."""
    checks = {
        *(kept.grouped.checks if kept.grouped else ()),
        *(gone.grouped.checks if gone.grouped else ()),
    }
    place = f" ({gone.path}:{gone.location})" if gone.path and gone.location else ""
    said = gone.finding if len(gone.finding) <= 300 else gone.finding[:297] + "..."
    evidence = f"{kept.evidence.rstrip('.')}; the same defect: {gone.check}{place}: {said}"
    grouped = replace(kept.grouped, checks=tuple(sorted(checks))) if kept.grouped else None
    worst = min((kept, gone), key=lambda o: _RANK[o.severity])
    return replace(kept, severity=worst.severity, evidence=evidence, grouped=grouped)


def _one(key: str, members: list[Observation], changed: Changed | None) -> Observation:
    ordered = sorted(
        members,
        key=lambda o: (_line(o.location), _RANK[o.severity], o.check or "", o.finding),
    )
    first = ordered[0]
    # the most severe report decides: a lens that rates a rule lower does not dilute it
    worst = min(ordered, key=lambda o: (_RANK[o.severity], o.check or ""))
    checks = tuple(sorted({o.check for o in ordered if o.check}))
    hit_prints = tuple(sorted({o.fingerprint for o in ordered}))
    if defect_class(first.rule, first.check) == BROKEN_TEST_RUN:
        first = _broken_run(ordered, changed)
        located = [first] if first.location else []
    else:
        located = [o for o in ordered if o.location]
    locations = _locations(located)
    return replace(
        first,
        severity=worst.severity,
        category=worst.category,
        location=_location_text(locations[0]) if locations else None,
        evidence=_evidence(ordered, locations),
        recommendation=worst.recommendation,
        fingerprint=_content_print(key, hit_prints),
        check=checks[0] if checks else None,
        grouped=Grouped(key, locations, checks, hit_prints),
    )


def _broken_run(ordered: list[Observation], changed: Changed | None) -> Observation:
    """One finding for every failing test of a run, at the change when there is one."""
    named: dict[str, None] = {}
    head = ""
    for obs in ordered:
        found = _FAILED_TEST.match(obs.finding)
        head = head or (found.group("head") if found else "")
        named.setdefault(found.group("test") if found else obs.finding)
    if not head:  # the run failed without naming its tests: its own words stand
        return replace(ordered[0], path="", location=None)
    tests = list(named)
    more = len(tests) - NAMED_TESTS
    listed = ", ".join(tests[:NAMED_TESTS]) + (f" and {more} more" if more > 0 else "")
    text = f"{head}{len(tests)} test(s) failed: {listed}"
    text += f"; first failure: {ordered[0].finding.removeprefix(head)}"
    path, line = _the_change(changed, {t.partition("::")[0] for t in tests})
    return replace(ordered[0], path=path, location=str(line) if line else None, finding=text)


def _the_change(changed: Changed | None, test_files: set[str]) -> tuple[str, int | None]:
    """The one non-test file the unit changed and its first changed line, else nowhere."""
    if not changed:
        return "", None
    files = [
        path
        for path, lines in sorted(changed.items())
        if lines and path not in test_files and not _is_test_file(path)
    ]
    return (files[0], min(changed[files[0]])) if len(files) == 1 else ("", None)


def _is_test_file(path: str) -> bool:
    """A test file by the descriptors' test globs (the test runners' ``tests``, as the
    ``Project`` has them), read on first use: never on a gate's path."""
    from aidlc_review.sensors.rule_severity import is_default_test_file

    return is_default_test_file(path)


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


def _location_text(place: Location) -> str:
    return f"{place.line}-{place.end_line}" if place.end_line else str(place.line)


def _evidence(ordered: list[Observation], locations: tuple[Location, ...]) -> str:
    said = dict.fromkeys(_AT_LINE.sub("", o.evidence).rstrip(".") for o in ordered)
    text = "; ".join(said)
    if not locations:
        return f"{text}."
    if len(locations) == 1:
        return f"{text} at line {locations[0].line}."
    return f"{text} at {len(locations)} lines (see locations)."


def _line(location: str | None) -> int:
    return int(location.split("-")[0]) if location else 0
