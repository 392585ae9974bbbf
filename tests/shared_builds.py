"""Setups one test run builds once and every xdist worker shares.

The first worker to ask builds under a file lock (from scratch again if an earlier build
stopped half-way); the rest wait, then reuse it. A build gets cache and state homes of its
own beside it, as a test does (see ``conftest.py``), so nothing reaches the real ones, and
a test that reads what the build sealed copies ``state_home(where)`` into its own.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from filelock import FileLock


def session_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The temp folder every xdist worker of this run shares (the run's own without xdist:
    the parent of a lone run's basetemp is shared by every past run)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def cache_home(where: Path) -> Path:
    return where.with_name(f"{where.name}.cache")


def share_tool_seeds(cache: Path, session: Path) -> None:
    """Give the cache home ``cache`` the run's one folder of tool cache seeds (mypy's), as a
    machine has one: a test's first mypy run starts from the first clean run's cache, not
    cold. mypy re-checks every seeded module against its source, so results do not depend
    on which test left the seed (tests/sensors/test_incremental_seed.py)."""
    sensors = cache / "aidlc-review" / "sensors"
    sensors.mkdir(parents=True, exist_ok=True)
    (session / "tool-seeds").mkdir(exist_ok=True)
    if not (sensors / "seeds").is_symlink():  # a build started again keeps its cache home
        (sensors / "seeds").symlink_to(session / "tool-seeds", target_is_directory=True)


def state_home(where: Path) -> Path:
    return where.with_name(f"{where.name}.state")


def build_once(
    where: Path,
    build: Callable[[Path], object],
    prepare: Callable[[pytest.MonkeyPatch], None] | None = None,
) -> Path:
    """``where``, made by ``build(where)`` once for every worker that asks; ``prepare`` sets
    up anything else the build's environment needs. ``where`` must be in a shared folder."""
    built = where.with_name(f"{where.name}.built")
    with FileLock(f"{where}.lock"):
        if not built.exists():
            shutil.rmtree(where, ignore_errors=True)
            with pytest.MonkeyPatch.context() as monkeypatch:
                monkeypatch.setenv("XDG_CACHE_HOME", str(cache_home(where)))
                share_tool_seeds(cache_home(where), where.parent)
                monkeypatch.setenv("XDG_STATE_HOME", str(state_home(where)))
                if prepare is not None:
                    prepare(monkeypatch)
                build(where)
            built.touch()
    return where


def npm_installed(
    tmp_path_factory: pytest.TempPathFactory, name: str, packages: list[str], package_json: str
) -> Path:
    """``node_modules`` with ``packages`` (pinned ``name@version``) installed from the npm
    registry once per test run under ``name``, shared by the xdist workers; a test that has
    no npm is skipped naming it."""
    import subprocess

    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed (the project's own JavaScript tools come from it)")

    def install(where: Path) -> None:
        where.mkdir()
        (where / "package.json").write_text(package_json)
        subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--silent", *packages],
            cwd=where,
            check=True,
            capture_output=True,
            timeout=600,
        )

    return build_once(session_root(tmp_path_factory) / name, install) / "node_modules"
