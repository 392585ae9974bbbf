"""The dependencies a file declares, keyed by (group, name): pyproject, requirements, lock
files, and npm's ``package.json`` and lock files (read by ``npm_dependencies``).

Each reader takes the file's text (as it is now, or as ``git show`` gives it at the
base) and returns what it declares. A line or entry that is not a requirement is
kept as such (``unreadable``), so a new one can be reported instead of ignored; an npm
file that does not parse at all is kept as ``broken`` (its reason and line).
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from aidlc_review.sensors import npm_dependencies as npm
from aidlc_review.sensors.context import SensorError
from aidlc_review.sensors.npm_ranges import NpmRequirement

# lock files whose TOML lists ``[[package]]`` tables with a name and a version
TOML_LOCKS = ("uv.lock", "poetry.lock", "pdm.lock")
JSON_LOCKS = ("Pipfile.lock",)
BACKSLASH = "\\"


@dataclass(frozen=True)
class Declared:
    # "dependencies", "optional:<extra>", "group:<name>", "requirements", "lock",
    # "npm:<package.json group>"
    group: str
    requirement: Requirement | NpmRequirement
    line: int | None

    @property
    def name(self) -> str:
        if isinstance(self.requirement, NpmRequirement):
            return self.requirement.name  # npm names are exact: no normalization
        return canonicalize_name(self.requirement.name)


@dataclass
class Declarations:
    kind: str  # "pyproject", "requirements", "package", "lock", "other"
    items: dict[tuple[str, str], Declared] = field(default_factory=dict)
    unreadable: dict[str, int] = field(default_factory=dict)  # text -> line
    broken: tuple[str, int | None] | None = None  # the whole file: why, and where


def kind_of(path: str) -> str:
    name = PurePosixPath(path).name
    if name == "pyproject.toml":
        return "pyproject"
    if name == npm.PACKAGE_JSON:
        return "package"
    if name in TOML_LOCKS or name in JSON_LOCKS or name in npm.LOCKS:
        return "lock"
    in_folder = PurePosixPath(path).parent.name == "requirements"
    if name.endswith(".txt") and (name.startswith("requirements") or in_folder):
        return "requirements"
    return "other"


def read_declarations(path: str, text: str | None) -> Declarations:
    """What ``text`` (None: the file does not exist) declares; bad TOML/JSON is a SensorError."""
    kind = kind_of(path)
    found = Declarations(kind)
    if text is None:
        return found
    try:
        if kind == "pyproject":
            _pyproject(path, text, found)
        elif kind == "package":
            _package_json(text, found)
        elif kind == "requirements":
            _requirements(text, found)
        elif kind == "lock":
            _lock(path, text, found)
    except npm.Unreadable as exc:
        found.broken = (exc.reason, exc.line)
    return found


def _package_json(text: str, found: Declarations) -> None:
    read = npm.read_package_json(text)
    for group, requirement, line in read.entries:
        declared = Declared(f"npm:{group}", requirement, line)
        found.items[(declared.group, declared.name)] = declared
    found.unreadable.update(read.unreadable)


def _pyproject(path: str, text: str, found: Declarations) -> None:
    data = _toml(path, text)
    project = data.get("project", {}) if isinstance(data.get("project"), dict) else {}
    lines = text.splitlines()
    _add_all(found, "dependencies", project.get("dependencies", []), lines, ("project", ""))
    optional = project.get("optional-dependencies", {})
    for extra, entries in sorted(optional.items() if isinstance(optional, dict) else []):
        where = ("project.optional-dependencies", extra)
        _add_all(found, f"optional:{extra}", entries, lines, where)
    groups = data.get("dependency-groups", {})
    for group, entries in sorted(groups.items() if isinstance(groups, dict) else []):
        _add_all(found, f"group:{group}", entries, lines, ("dependency-groups", group))


def _add_all(
    found: Declarations, group: str, entries: Any, lines: list[str], where: tuple[str, str]
) -> None:
    start = _anchor(lines, *where)
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, str):
            continue  # {include-group = "..."}: the included group is read on its own
        _add(found, group, entry, _line_of(lines, entry, start))


def _anchor(lines: list[str], table: str, key: str) -> int:
    """The index of the line opening ``key = [`` in ``[table]`` (``key`` "": the
    ``dependencies`` key), so an entry is located in its own group; 0 when not found."""
    header = re.compile(rf"^\s*\[\s*{re.escape(table)}\s*\]")
    opening = re.compile(rf"^\s*[\"']?{re.escape(key or 'dependencies')}[\"']?\s*=")
    inside = False
    for index, line in enumerate(lines):
        if line.lstrip().startswith("["):
            inside = bool(header.match(line))
        elif inside and opening.match(line):
            return index
    return 0


def _line_of(lines: list[str], entry: str, start: int) -> int | None:
    for number, line in enumerate(lines[start:], start + 1):
        if f'"{entry}"' in line or f"'{entry}'" in line:
            return number
    return None


def _add(found: Declarations, group: str, text: str, line: int | None) -> None:
    try:
        requirement = Requirement(text)
    except InvalidRequirement:
        found.unreadable[text] = line or 0
        return
    declared = Declared(group, requirement, line)
    found.items[(group, declared.name)] = declared


def _requirements(text: str, found: Declarations) -> None:
    for number, line in _logical_lines(text):
        if line.startswith(("-r", "-c", "--requirement", "--constraint")):
            continue  # an included file is read (and reported) on its own when claimed
        if line.startswith("-"):
            found.unreadable[line] = number  # an index URL, an editable path: review by hand
            continue
        # per-requirement options (--hash=...) say how to fetch it, not what it is
        _add(found, "requirements", line.split(" --", 1)[0].strip(), number)


def _logical_lines(text: str) -> list[tuple[int, str]]:
    """(first line number, text) with comments dropped and ``\\`` continuations joined."""
    joined: list[tuple[int, str]] = []
    pending: tuple[int, str] | None = None
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split(" #", 1)[0].strip() if not raw.lstrip().startswith("#") else ""
        start, sofar = pending if pending else (number, "")
        sofar = f"{sofar} {line.removesuffix(BACKSLASH).strip()}".strip()
        if line.endswith(BACKSLASH):
            pending = (start, sofar)
            continue
        pending = None
        if sofar:
            joined.append((start, sofar))
    if pending and pending[1]:
        joined.append(pending)
    return joined


def _lock(path: str, text: str, found: Declarations) -> None:
    if PurePosixPath(path).name in npm.LOCKS:
        for name, version in npm.lock_packages(path, text):
            found.items[("lock", name)] = Declared("lock", NpmRequirement(name, version), None)
        return
    if PurePosixPath(path).name in JSON_LOCKS:
        packages = _pipfile_lock(path, text)
    else:
        entries = _toml(path, text).get("package", [])
        packages = [
            (str(p["name"]), str(p.get("version", "")))
            for p in (entries if isinstance(entries, list) else [])
            if isinstance(p, dict) and p.get("name")
        ]
    for name, version in packages:
        _add(found, "lock", f"{name}=={version}" if _is_version(version) else name, None)


def _pipfile_lock(path: str, text: str) -> list[tuple[str, str]]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SensorError(f"{path}: not valid JSON: {exc}") from None
    packages = []
    for section in ("default", "develop"):
        entries = data.get(section, {}) if isinstance(data, dict) else {}
        for name, entry in sorted(entries.items() if isinstance(entries, dict) else []):
            version = entry.get("version", "") if isinstance(entry, dict) else ""
            packages.append((name, str(version).removeprefix("==")))
    return packages


def _is_version(text: str) -> bool:
    try:
        Version(text)
    except InvalidVersion:
        return False
    return True


def _toml(path: str, text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SensorError(f"{path}: not valid TOML: {exc}") from None
