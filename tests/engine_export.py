"""Upstream's AI-DLC engine for the tests: an export named by ``AIDLC_UPSTREAM``, never this repo.

Upstream's engine is someone else's code and is never committed here. ``../shared/README.md``
says how to export a snapshot's ``dist/claude`` into a scratch folder; ``AIDLC_UPSTREAM``
names that folder (it holds ``.claude/``). ``make test-engine`` takes several, separated by
``:``, and runs the engine suite once per export.

- ``data()``: the engine's *data* (stages, scopes, agents, sensors, settings, compiled
  ``tools/data``): the export's when one is given, else ``../shared/aidlc-upstream``, which
  holds 2.5.5's data without its code. Tests that only edit files read this.
- ``require()``: the export itself, or the test is skipped with ``REASON``. A test that runs
  the engine is marked ``engine`` (``pytest -m engine`` is the engine suite); ``conftest.py``
  fails a test that asked for the engine without the mark, so the suite stays complete.
- ``version()``: the export's ``AIDLC_VERSION``, for the expectations that differ by engine.
"""

from __future__ import annotations

import functools
import os
import shutil
from pathlib import Path

import pytest

from aidlc_review.harness.layout import PROJECT_ROOT
from aidlc_review.install.engine_contract import EngineContract

ENV = "AIDLC_UPSTREAM"
SHARED = PROJECT_ROOT.parent / "shared"
DATA = SHARED / "aidlc-upstream"
RUNNER = SHARED / "bin" / "aidlc-upstream"
# what makes a folder an export of the engine, not just its data
TOOLS = (".claude/tools/aidlc-graph.ts", ".claude/tools/aidlc-orchestrate.ts")
REASON = (
    f"needs upstream's engine: set {ENV} to an export of its dist/claude "
    "(../shared/README.md says how)"
)


@functools.cache
def export() -> Path | None:
    """The export ``AIDLC_UPSTREAM`` names, when it holds the engine's tools; else None."""
    named = os.environ.get(ENV, "")
    if not named or os.pathsep in named:  # several: make test-engine runs one at a time
        return None
    root = Path(named).expanduser().resolve()
    return root if all((root / tool).is_file() for tool in TOOLS) else None


def require() -> Path:
    """The export; the calling test is skipped (not failed) when there is none."""
    root = export()
    if root is None:
        pytest.skip(REASON)
    return root


def for_script(name: str) -> Path:
    """The export, for a script outside pytest (a bench): exit 2 naming what is missing."""
    root = export()
    if root is None:
        raise SystemExit(f"{name}: {REASON}")
    return root


def data() -> Path:
    """A folder holding the engine's data (``.claude/``, ``aidlc/``): the export's if given."""
    return export() or DATA


def version() -> tuple[int, ...]:
    """The export's engine version as numbers, e.g. (2, 6, 18)."""
    found = EngineContract.read(require() / ".claude").version
    assert found, f"{require()}: no AIDLC_VERSION in the export's tools"
    return tuple(int(part) for part in found.split(".") if part.isdigit())


def copy(where: Path) -> Path:
    """A private copy of the export at ``where`` (symlinks kept, everything writable)."""
    shutil.copytree(require(), where, symlinks=True)
    for path in [where, *where.rglob("*")]:
        if not path.is_symlink():
            path.chmod(0o755 if path.is_dir() else 0o644)
    return where
