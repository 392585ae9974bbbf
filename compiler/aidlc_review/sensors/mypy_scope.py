"""Which claimed files the project's own mypy configuration checks.

A project that names its ``files`` (``[tool.mypy] files`` in ``pyproject.toml``, or
``files =`` in the ``[mypy]`` section of ``mypy.ini``, ``.mypy.ini`` or ``setup.cfg``)
type-checks those and nothing else: its tests, say, are not held to ``strict``. The
review type-checks the claimed files inside that scope, as the project's own ``mypy``
run does; without ``files`` every claimed file is in it.
"""

from __future__ import annotations

import configparser
import fnmatch
import tomllib
from pathlib import Path

INI_FILES = ("mypy.ini", ".mypy.ini", "setup.cfg")


def configured_files(workspace: Path) -> list[str] | None:
    """The ``files`` entries of the workspace's mypy config (first one mypy reads), or None."""
    for name in INI_FILES[:2]:
        if (workspace / name).is_file():
            return _ini_files(workspace / name)
    pyproject = workspace / "pyproject.toml"
    if pyproject.is_file():
        try:
            table = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("tool", {})
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            return None
        if "mypy" in table:
            return _entries(table["mypy"].get("files"))
    setup = workspace / INI_FILES[2]
    return _ini_files(setup) if setup.is_file() else None


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


def _ini_files(path: Path) -> list[str] | None:
    parser = configparser.RawConfigParser(strict=False, interpolation=None)
    try:
        parser.read_string(path.read_text(encoding="utf-8"), source=str(path))
    except (OSError, UnicodeDecodeError, configparser.Error):
        return None
    if not parser.has_option("mypy", "files"):
        return None
    return _entries(parser.get("mypy", "files"))
