"""A real npm project's test runners (vitest with its v8 coverage provider, jest), installed
from the npm registry at pinned versions once per test run, and small JavaScript workspaces
that use them; node's own test runner is the ``node`` on PATH."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.sensors.support import commit_all, make_workspace
from tests.shared_builds import npm_installed

PACKAGES = ["vitest@3.2.7", "@vitest/coverage-v8@3.2.7", "jest@30.5.2"]
PROVIDER = "@vitest/coverage-v8"

ESM = '{"name": "calc", "version": "1.0.0", "private": true, "type": "module"}\n'
COMMONJS = '{"name": "calc", "version": "1.0.0", "private": true}\n'


def node_modules(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The installed packages (one ``npm install`` per test run, shared by xdist workers)."""
    return npm_installed(tmp_path_factory, "npm-test-runners", PACKAGES, COMMONJS)


def js_workspace(root: Path, files: dict[str, str], installed: Path) -> Path:
    """``files`` committed as the base in a workspace using the installed packages."""
    make_workspace(root, {".gitignore": "node_modules\n", **files})
    os.symlink(installed, root / "node_modules")
    return commit_all(root)


def without_provider(root: Path, installed: Path) -> None:
    """The workspace's ``node_modules`` with every package but vitest's coverage provider."""
    (root / "node_modules").unlink()
    folder = root / "node_modules"
    folder.mkdir()
    for entry in installed.iterdir():
        if entry.name != "@vitest":
            (folder / entry.name).symlink_to(entry)
    (folder / "@vitest").mkdir()
    for entry in (installed / "@vitest").iterdir():
        if f"@vitest/{entry.name}" != PROVIDER:
            (folder / "@vitest" / entry.name).symlink_to(entry)
