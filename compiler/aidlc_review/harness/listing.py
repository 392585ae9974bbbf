"""Which files a harness is defined by, listed with ``os`` alone.

This is the one listing of a harness's definition files. ``HarnessLayout`` wraps it
in ``Path`` objects for the compiler; ``compile --check``'s fast path calls it directly,
because importing ``pathlib`` (and ``re`` and ``urllib`` behind it) would cost that path
more than hashing every file does. Paths here are absolute strings; a file's display
name is its path relative to the harness root, with ``/`` separators.

Matching follows the globs it replaced (``*/*.md`` under the stages folder, and
``aidlc-*.md`` or ``*.md`` directly under ``scopes/``, ``agents/`` and ``sensors/``):
names are case-sensitive, dotfiles match, symlinks are followed, and files are sorted
by their path parts.
"""

from __future__ import annotations

import os

from aidlc_review.errors import InvalidInput
from aidlc_review.upstream import names

PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
PROJECT_ROOT = os.path.dirname(os.path.dirname(PACKAGE_DIR))
PACKAGED = "_plugin"
# The files of upstream's engine a compile reads (under the harness root): what makes a
# harness an engine's, and where the engine declares its dialect (``harness.engine``).
ENGINE_MARKER = f"{names.TOOLS_DIR}/{names.GRAPH_TOOL}"
ENGINE_DECLARATIONS = (
    ENGINE_MARKER,
    *(f"{names.TOOLS_DIR}/{t}" for t in (names.LIB_TOOL, names.SCHEMA_TOOL, names.VERSION_TOOL)),
)


def in_checkout() -> bool:
    """True when this package runs from this repository's source tree (editable install)."""
    return os.path.isfile(os.path.join(PROJECT_ROOT, "pyproject.toml")) and os.path.isdir(
        os.path.join(PROJECT_ROOT, "stages")
    )


def plugin_root() -> str:
    """Where the plugin's shipped definitions are: this checkout's root when running from
    source, else the installed package's ``_plugin/`` (the wheel carries them, see setup.py)."""
    if in_checkout():
        return PROJECT_ROOT
    packaged = os.path.join(PACKAGE_DIR, PACKAGED)
    if not os.path.isdir(packaged):
        raise InvalidInput(
            f"{packaged}: this aidlc-review carries no plugin definitions "
            "(built without its build hook?); reinstall it from a wheel built by `python -m build`"
        )
    return packaged


def locate(root: str | None) -> tuple[str, str]:
    """The harness at ``root`` (default: the plugin's own) as (root, stages folder), both
    resolved; an error naming the folder when it is no harness."""
    base = os.path.realpath(root or plugin_root())
    if not os.path.isdir(base):
        raise InvalidInput(f"{base}: harness directory not found")
    for candidate in (os.path.join(base, "aidlc-common", "stages"), os.path.join(base, "stages")):
        if os.path.isdir(candidate):
            return base, candidate
    raise InvalidInput(f"{base}: not an AI-DLC harness (no aidlc-common/stages/ or stages/ folder)")


def _named(folder: str, prefix: str, suffix: str) -> list[str]:
    """Files ``prefix*suffix`` directly in ``folder``, sorted by name."""
    try:
        with os.scandir(folder) as entries:
            names = [
                entry.name
                for entry in entries
                if entry.name.startswith(prefix)
                and entry.name.endswith(suffix)
                and len(entry.name) >= len(prefix) + len(suffix)
                and entry.is_file()
            ]
    except OSError:  # missing, not a folder, unreadable: as the glob it replaced, nothing
        return []
    return [os.path.join(folder, name) for name in sorted(names)]


def _subfolders(folder: str) -> list[str]:
    try:
        with os.scandir(folder) as entries:
            names = [entry.name for entry in entries if entry.is_dir()]
    except OSError:
        return []
    return [os.path.join(folder, name) for name in sorted(names)]


def stage_files(stages_dir: str) -> list[str]:
    return [path for sub in _subfolders(stages_dir) for path in _named(sub, "", ".md")]


def scope_files(root: str) -> list[str]:
    return _named(os.path.join(root, "scopes"), "aidlc-", ".md")


def agent_files(root: str) -> list[str]:
    return _named(os.path.join(root, "agents"), "", ".md")


def sensor_files(root: str) -> list[str]:
    return _named(os.path.join(root, "sensors"), "aidlc-", ".md")


def engine_files(root: str) -> list[str]:
    """The engine's declaration files the harness holds (none without an engine)."""
    found = (os.path.join(root, *name.split("/")) for name in ENGINE_DECLARATIONS)
    return [path for path in found if os.path.isfile(path)]


def definition_files(root: str, stages_dir: str) -> list[str]:
    """Every file a compile reads: stages, scopes, agents, sensors, then the engine's
    declarations (they decide the dialect the rest is judged in), in that order."""
    return [
        *stage_files(stages_dir),
        *scope_files(root),
        *agent_files(root),
        *sensor_files(root),
        *engine_files(root),
    ]


def display(root: str, path: str) -> str:
    """``path`` relative to ``root`` (lexically, as the listing built it), ``/``-separated."""
    prefix = root if root.endswith(os.sep) else root + os.sep
    if not path.startswith(prefix):
        raise ValueError(f"{path} is not under {root}")
    return path[len(prefix) :].replace(os.sep, "/")
