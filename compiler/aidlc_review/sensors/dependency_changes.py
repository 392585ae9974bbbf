"""Which declared dependencies a change added or loosened, and which of those are approved.

"Loosened" means the new requirement admits a version (or an extra) the old one did
not. Whether one specifier set admits more than another is decided on probe versions:
every version either set names, its neighbours one step up and down in each release
part, and the extremes. That covers what people write (``>=``, ``<``, ``==``, ``~=``,
``!=``, wildcards) without solving version algebra. npm's specs are judged the same way by
``npm_ranges``.
"""

from __future__ import annotations

from dataclasses import dataclass

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from aidlc_review.sensors import npm_ranges
from aidlc_review.sensors.dependency_files import Declarations, Declared
from aidlc_review.sensors.npm_ranges import NpmRequirement

EXTREMES = (Version("0"), Version("0.0.1"), Version("99999"))


@dataclass(frozen=True)
class Change:
    kind: str  # "added", "loosened", "unreadable"
    group: str  # the declaration's group; "file" for a file that cannot be read at all
    name: str
    now: str
    before: str | None
    line: int | None


def changes(before: Declarations, now: Declarations) -> list[Change]:
    """Every declaration added or loosened since ``before``, and every new unreadable line."""
    found = []
    for key, declared in sorted(now.items.items()):
        old = before.items.get(key)
        shown = str(declared.requirement)
        if old is None:
            found.append(Change("added", declared.group, declared.name, shown, None, declared.line))
        elif admits_more(old.requirement, declared.requirement):
            found.append(
                Change(
                    "loosened",
                    declared.group,
                    declared.name,
                    shown,
                    str(old.requirement),
                    declared.line,
                )
            )
    for text, line in sorted(now.unreadable.items()):
        if text not in before.unreadable:
            found.append(Change("unreadable", "", "", text, None, line or None))
    if now.broken is not None:  # whatever it was at the base: nothing in it is checked now
        found.append(Change("unreadable", "file", "", now.broken[0], None, now.broken[1]))
    return found


def admits_more(old: Requirement | NpmRequirement, new: Requirement | NpmRequirement) -> bool:
    """Whether ``new`` allows a version or an extra that ``old`` did not."""
    if isinstance(old, NpmRequirement) or isinstance(new, NpmRequirement):
        if isinstance(old, NpmRequirement) and isinstance(new, NpmRequirement):
            return npm_ranges.admits_more(old, new)
        return True  # from one ecosystem's syntax to the other's: a reviewer reads it
    if not new.extras <= old.extras:
        return True
    if old.marker is not None and str(old.marker) != str(new.marker or ""):
        return True  # another marker may admit more environments: a reviewer decides
    if old.url or new.url:
        return old.url != new.url
    return _wider(old.specifier, new.specifier)


def _wider(old: SpecifierSet, new: SpecifierSet) -> bool:
    probes = _probes(old) | _probes(new)
    return any(
        new.contains(v, prereleases=True) and not old.contains(v, prereleases=True) for v in probes
    )


def _probes(specifiers: SpecifierSet) -> set[Version]:
    probes = set(EXTREMES)
    for spec in specifiers:
        try:
            version = Version(spec.version.removesuffix(".*"))
        except InvalidVersion:
            continue  # "===" arbitrary equality: compared as text by packaging
        probes.update(_neighbours(version))
    return probes


def _neighbours(version: Version) -> set[Version]:
    """The version, just above it, and one step up and down in each release part."""
    release = list(version.release)
    found = {version, Version(f"{version.base_version}.post1"), _v([*release, 1])}
    for index, part in enumerate(release):
        found.add(_v([*release[:index], part + 1]))
        if part > 0:
            found.add(_v([*release[:index], part - 1, 99999]))
    return found


def _v(parts: list[int]) -> Version:
    return Version(".".join(map(str, parts)))


def approved_by(declared: Declared, approvals: list[str]) -> str | None:
    """The approval covering ``declared``, as its entry reads: same name, and it admits
    nothing the approval does not (``requests>=2`` approves ``requests>=2.31``, not
    ``requests>=1``; ``lodash@^4`` approves ``lodash@^4.17.21``, not ``lodash@*``; a bare
    name approves any version). Each entry is read in the declaration's own syntax."""
    requirement = declared.requirement
    for entry in approvals:
        if isinstance(requirement, NpmRequirement):
            npm = npm_ranges.parse_approval(entry)
            if npm is not None and npm_ranges.approves(npm, requirement):
                return str(npm)
            continue
        python = _python(entry)
        if python is None or canonicalize_name(python.name) != declared.name:
            continue
        if not admits_more(python, requirement):
            return str(python)
    return None


def approval_problem(entry: str) -> str | None:
    """Why ``entry`` is neither a Python requirement nor npm's ``name`` / ``name@range``
    (None: it is one of them)."""
    if npm_ranges.parse_approval(entry) is not None:
        return None
    try:
        Requirement(entry)
    except InvalidRequirement as exc:
        return str(exc).splitlines()[0]
    return None


def _python(entry: str) -> Requirement | None:
    try:
        return Requirement(entry)
    except InvalidRequirement:
        return None
