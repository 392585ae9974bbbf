"""What npm's files declare: ``package.json``'s dependency groups and the packages its lock
files hold (``package-lock.json`` / ``npm-shrinkwrap.json``, ``yarn.lock`` classic and berry,
``pnpm-lock.yaml``).

Each reader takes the file's text and returns plain entries; ``dependency_files`` turns them
into declarations. A file that cannot be parsed raises ``Unreadable`` with the line it breaks
at: it becomes a finding naming the file and line, never a pass.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from json.decoder import scanstring  # type: ignore[attr-defined]
from pathlib import PurePosixPath
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from aidlc_review.sensors.npm_ranges import NpmRequirement, split_entry

PACKAGE_JSON = "package.json"
GROUPS = ("dependencies", "devDependencies", "optionalDependencies", "peerDependencies")
JSON_LOCKS = ("package-lock.json", "npm-shrinkwrap.json")
LOCKS = (*JSON_LOCKS, "yarn.lock", "pnpm-lock.yaml")
_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"[ \t\r\n]*")
_YARN_VERSION = re.compile(r'^\s+version:?\s+"?([^"\s]+)"?\s*$')
_PNPM_AT_FORM = re.compile(r"^(@[^/]+/)?[^/@]+@")  # name@version (pnpm 6+), not /name/version


class Unreadable(Exception):
    def __init__(self, reason: str, line: int | None) -> None:
        super().__init__(reason)
        self.reason, self.line = reason, line


@dataclass
class PackageJson:
    # (group, requirement, line of its key)
    entries: list[tuple[str, NpmRequirement, int]] = field(default_factory=list)
    unreadable: dict[str, int] = field(default_factory=dict)  # what cannot be read -> line


def read_package_json(text: str) -> PackageJson:
    """The four dependency groups, each entry at the line of its key."""
    data = _json(text)
    if not isinstance(data, dict):
        raise Unreadable("the top level is not an object", 1)
    found = PackageJson()
    top = _members(text, 0)
    for group in GROUPS:
        if group not in top:
            continue
        value, key_at, value_at = top[group]
        if not isinstance(value, dict):
            found.unreadable[f'"{group}" is not an object'] = _line(text, key_at)
            continue
        for name, (spec, at, _) in _members(text, value_at).items():
            if isinstance(spec, str):
                found.entries.append((group, NpmRequirement(name, spec.strip()), _line(text, at)))
            else:
                found.unreadable[f'"{group}": "{name}": {json.dumps(spec)}'] = _line(text, at)
    return found


def lock_packages(path: str, text: str) -> list[tuple[str, str]]:
    """(name, version) of every package an npm, yarn or pnpm lock file holds."""
    name = PurePosixPath(path).name
    if name in JSON_LOCKS:
        return _npm_lock(text)
    if name == "yarn.lock":
        return _yarn_lock(text)
    return _pnpm_lock(text)


def _npm_lock(text: str) -> list[tuple[str, str]]:
    data = _json(text)
    if not isinstance(data, dict):
        raise Unreadable("the top level is not an object", 1)
    packages = data.get("packages")
    if isinstance(packages, dict):  # lockfileVersion 2 and 3
        return [
            (str(entry.get("name") or key.rsplit("node_modules/", 1)[1]), str(entry["version"]))
            for key, entry in packages.items()
            if "node_modules/" in key  # "" is the project, other keys its workspaces
            and isinstance(entry, dict)
            and not entry.get("link")
            and "version" in entry
        ]
    return _npm_lock_v1(data.get("dependencies"))


def _npm_lock_v1(tree: Any) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for name, entry in tree.items() if isinstance(tree, dict) else []:
        if isinstance(entry, dict):
            found.append((name, str(entry.get("version", ""))))
            found += _npm_lock_v1(entry.get("dependencies"))
    return found


def _yarn_lock(text: str) -> list[tuple[str, str]]:
    """Classic (``"a@^1", a@^1.2:`` then ``version "1.2.3"``) and berry (YAML: ``"a@npm:^1":``
    then ``version: 1.2.3``) alike: each unindented entry names its package, the next
    ``version`` line gives the version. Workspaces (``@workspace:``) are the project."""
    found: list[tuple[str, str]] = []
    names: list[str] = []
    for line in text.splitlines():
        if line and not line[0].isspace() and not line.startswith("#") and line.endswith(":"):
            descriptors = [d.strip().strip('"') for d in line[:-1].split(",")]
            names = sorted(
                {split_entry(d)[0] for d in descriptors if "@workspace:" not in d} - {"__metadata"}
            )
        elif names and (version := _YARN_VERSION.match(line)):
            found += [(name, version.group(1)) for name in names]
            names = []
    return found


def _pnpm_lock(text: str) -> list[tuple[str, str]]:
    try:
        data = YAML(typ="safe", pure=True).load(text)
    except YAMLError as exc:
        mark = exc.problem_mark if isinstance(exc, MarkedYAMLError) else None
        line = mark.line + 1 if mark is not None else None
        raise Unreadable(f"not valid YAML: {str(exc).splitlines()[0]}", line) from None
    packages = data.get("packages") if isinstance(data, dict) else None
    return [_pnpm_key(str(key)) for key in packages or {}] if isinstance(packages, dict) else []


def _pnpm_key(key: str) -> tuple[str, str]:
    """``/a/1.0.0_peer@2`` (pnpm 5), ``/a@1.0.0(peer@2)`` (6), ``a@1.0.0`` (9) -> (a, 1.0.0)."""
    bare = re.sub(r"\(.*$", "", key.lstrip("/"))
    if _PNPM_AT_FORM.match(bare):
        return split_entry(bare)
    name, _, version = bare.rpartition("/")
    return name, version.split("_", 1)[0]


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise Unreadable(f"not valid JSON: {exc.msg} (column {exc.colno})", exc.lineno) from None


def _members(text: str, index: int) -> dict[str, tuple[Any, int, int]]:
    """The members of the (valid) JSON object at ``index``: key -> (value, where its key
    starts, where its value starts), so an entry is located at its own key's line."""
    index = _skip(text, index)
    if text[index : index + 1] != "{":
        return {}
    index = _skip(text, index + 1)
    found: dict[str, tuple[Any, int, int]] = {}
    while text[index : index + 1] == '"':
        key, end = scanstring(text, index + 1)
        colon = _skip(text, end)
        start = _skip(text, colon + 1)
        value, after = _DECODER.raw_decode(text, start)
        found[key] = (value, index, start)
        index = _skip(text, after)
        if text[index : index + 1] == ",":
            index = _skip(text, index + 1)
    return found


def _skip(text: str, index: int) -> int:
    """The index past JSON whitespace from ``index``."""
    spaces = _SPACE.match(text, index)
    return spaces.end() if spaces else index


def _line(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1
