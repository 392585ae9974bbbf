"""npm's requirement syntax: whether a ``package.json`` spec admits a version the old one did not.

A spec is one of four kinds, as npm itself reads it (npm-package-arg): a semver **range**
(``^1.2.3``, ``~1.2``, ``1.x``, ``>=1 <2``, ``1.2.3 - 2.3.4``, ``||``, ``*``, ``""``), a
dist-**tag** (``latest``, ``next``: whatever the tag points at when installed, any version),
an **alias** (``npm:other@^1``), or another **source** (``git+https:``, ``github:u/r``,
``file:``, ``link:``, ``workspace:``, a tarball URL). Ranges are read by node-semver's port
(``nodesemver``), never by hand; whether the new range admits more is decided on probe
versions, as ``dependency_changes`` does for Python: every version either range names, its
neighbours one step up and down in each part, prerelease forms, and the extremes. A change
of source or of alias target is a change a reviewer reads: it counts as admitting more.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

import nodesemver

Kind = Literal["range", "tag", "alias", "source"]
# npm's rules for a package name (validate-npm-package-name, new packages)
NAME = re.compile(r"^(?:@[a-z0-9~-][a-z0-9._~-]*/)?[a-z0-9~-][a-z0-9._~-]*$", re.IGNORECASE)
TAG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")  # what npm-package-arg takes for a dist-tag
EXTREMES = ("0.0.0", "0.0.1", "0.1.0", "1.0.0", "99999.0.0")
HIGH = 99999


@dataclass(frozen=True)
class NpmRequirement:
    """One npm dependency as written: its name and its spec (a lock entry: the exact version)."""

    name: str
    spec: str

    def __str__(self) -> str:
        return f"{self.name}@{self.spec}" if self.spec else self.name


def kind_of(spec: str) -> Kind:
    if spec.startswith("npm:"):
        return "alias"
    if _range(spec) is not None:
        return "range"
    return "tag" if TAG.match(spec) else "source"


def admits_more(old: NpmRequirement, new: NpmRequirement) -> bool:
    """Whether ``new`` can install a version (or a source) that ``old`` could not."""
    if old.spec == new.spec:
        return False
    was, now = kind_of(old.spec), kind_of(new.spec)
    if now == "range":
        if was == "range":
            return _wider(old.spec, new.spec)
        return was != "tag"  # a tag stood for any version; from a source to the registry is new
    if now == "alias" and was == "alias":
        before, after = alias_target(old.spec), alias_target(new.spec)
        return before.name != after.name or admits_more(before, after)
    if now == "tag" and was == "range":
        return not _admits_everything(old.spec)
    return True  # another tag, alias or source: a reviewer reads where it now comes from


def alias_target(spec: str) -> NpmRequirement:
    """``npm:real@^1`` -> real@^1 (``npm:real`` -> real, any version)."""
    name, spec = split_entry(spec.removeprefix("npm:"))
    return NpmRequirement(name, spec)


def split_entry(entry: str) -> tuple[str, str]:
    """``name@spec`` -> (name, spec); a scope's leading ``@`` is part of the name."""
    at = entry.rfind("@")
    if at <= 0:
        return entry, ""
    return entry[:at], entry[at + 1 :]


def parse_approval(entry: str) -> NpmRequirement | None:
    """An ``approved-dependencies`` entry read as npm's ``name`` or ``name@range`` (None: it
    is not one: the name is not an npm name, or what follows ``@`` is not a range)."""
    name, spec = split_entry(entry.strip())
    if not NAME.match(name) or (spec and _range(spec) is None):
        return None
    return NpmRequirement(name, spec)


def approves(approval: NpmRequirement, declared: NpmRequirement) -> bool:
    """A bare name approves anything of that name; ``name@range`` approves a spec that
    admits nothing the range does not."""
    if approval.name != declared.name:
        return False
    return not approval.spec or not admits_more(approval, declared)


def _range(spec: str) -> Any | None:
    try:
        return nodesemver.make_range(spec, loose=True)
    except (ValueError, TypeError, AttributeError):
        return None


def _admits_everything(spec: str) -> bool:
    found = _range(spec)
    return found is not None and any(
        all(c.semver is nodesemver.ANY for c in comparators) for comparators in found.set
    )


def _wider(old: str, new: str) -> bool:
    before, after = _range(old), _range(new)
    assert before is not None and after is not None  # both are ranges (kind_of)
    probes = _probes(before) | _probes(after)
    return any(after.test(v) and not before.test(v) for v in sorted(probes))


def _probes(found: Any) -> set[str]:
    probes = set(EXTREMES)
    for comparators in found.set:
        for comparator in comparators:
            version = comparator.semver
            if version is nodesemver.ANY:
                continue
            probes.update(_neighbours(version.major, version.minor, version.patch))
            if version.prerelease:
                probes.add(str(version.version))
    return probes


def _neighbours(major: int, minor: int, patch: int) -> set[str]:
    """The version, one step up and down in each part, and the lowest prerelease of each."""
    steps = {(major, minor, patch), (major + 1, 0, 0), (major, minor + 1, 0)}
    steps.add((major, minor, patch + 1))
    if major > 0:
        steps.add((major - 1, HIGH, HIGH))
    if minor > 0:
        steps.add((major, minor - 1, HIGH))
    if patch > 0:
        steps.add((major, minor, patch - 1))
    found = set()
    for step in steps:
        text = ".".join(map(str, step))
        found.update({text, f"{text}-0"})
    return found
