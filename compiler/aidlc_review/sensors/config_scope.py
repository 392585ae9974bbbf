"""Which claimed files the project's own configuration of a tool has it check.

A project that names the files its checker checks (a ``files`` key in the tool's section)
checks those and nothing else: its tests, say, are not held to ``strict``. The review checks
the claimed files inside that scope, as the project's own run does; without such a key
every claimed file is in it.

Where to look is the runner's manifest (``options.scope``): the key, and the config files
in the order the tool reads them, each with its section. The first that applies decides,
as the tool itself takes the first it finds: a file of the tool's own when it exists, a
``shared`` one (a ``pyproject.toml``, a ``setup.cfg``) only when it holds the section.
"""

from __future__ import annotations

import configparser
import fnmatch
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aidlc_review.sensors.context import SensorError


@dataclass(frozen=True)
class ScopeSource:
    file: str  # at the workspace's root
    section: str  # a TOML table (``tool.x``) in a ``.toml`` file, an INI section otherwise
    shared: bool = False  # other tools' file too: it applies only when it holds the section


@dataclass(frozen=True)
class Scope:
    key: str
    sources: tuple[ScopeSource, ...]


def scope_of(option: Any) -> Scope | None:
    """The runner's ``scope`` option as a ``Scope`` (None: every claimed file is in scope);
    a malformed one is a ``SensorError`` naming what is wrong."""
    if option is None:
        return None
    try:
        key = option["key"]
        sources = tuple(
            ScopeSource(str(s["file"]), str(s["section"]), bool(s.get("shared", False)))
            for s in option["sources"]
        )
    except (KeyError, TypeError) as exc:
        raise SensorError(f"runner option scope: expected key and sources, got {exc}") from None
    if not isinstance(key, str) or not key:
        raise SensorError(f"runner option scope.key: expected a name, got {key!r}")
    return Scope(key, sources)


def configured_files(workspace: Path, scope: Scope | None) -> list[str] | None:
    """The ``scope.key`` entries of the config the tool reads (the first that applies), or
    None when it names none."""
    if scope is None:
        return None
    for source in scope.sources:
        path = workspace / source.file
        if not path.is_file():
            continue
        table = _section(path, source.section)
        if table is _UNREADABLE:
            return None  # as the tool would fail on it, the review does not narrow
        if table is None and source.shared:
            continue
        return _entries(table.get(scope.key)) if isinstance(table, dict) else None
    return None


def in_scope(files: list[str], entries: list[str] | None) -> list[str]:
    """The files one of ``entries`` (a path, a folder, or a glob) covers; all without them."""
    if not entries:
        return files
    wanted = [e.strip().rstrip("/").removeprefix("./") for e in entries if e.strip()]
    return [f for f in files if any(_covers(e, f) for e in wanted)]


def _covers(entry: str, path: str) -> bool:
    if any(c in entry for c in "*?["):
        return fnmatch.fnmatch(path, entry) or fnmatch.fnmatch(path, f"{entry}/*")
    return path == entry or path.startswith(f"{entry}/")


def _entries(value: object) -> list[str] | None:
    if isinstance(value, str):
        return [part for part in value.split(",") if part.strip()]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    return None


_UNREADABLE = object()


def _section(path: Path, section: str) -> object:
    """The section of ``path`` as a dict, None when it has none, ``_UNREADABLE`` when the
    file does not parse."""
    if path.suffix == ".toml":
        try:
            table: Any = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            return _UNREADABLE
        for part in section.split("."):
            table = table.get(part) if isinstance(table, dict) else None
        return table if isinstance(table, dict) else None
    parser = configparser.RawConfigParser(strict=False, interpolation=None)
    try:
        parser.read_string(path.read_text(encoding="utf-8"), source=str(path))
    except (OSError, UnicodeDecodeError, configparser.Error):
        return _UNREADABLE
    return dict(parser.items(section)) if parser.has_section(section) else None
