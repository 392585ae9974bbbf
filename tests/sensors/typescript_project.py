"""The npm packages of a strictly configured TypeScript project (tsc, eslint with
typescript-eslint, vitest, prettier), installed from the npm registry at pinned versions once
per test run and shared by every test that needs them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.shared_builds import npm_installed

PACKAGES = [
    "typescript@5.9.3",
    "eslint@9.39.5",
    "typescript-eslint@8.74.0",
    "vitest@3.2.7",
    "prettier@3.10.2",
]
PACKAGE_JSON = '{"name": "orders", "version": "1.0.0", "type": "module", "private": true}\n'


def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The installed ``node_modules`` (one ``npm install`` per test run)."""
    return npm_installed(tmp_path_factory, "npm-project", PACKAGES, PACKAGE_JSON)
