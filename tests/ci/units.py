"""A workspace with three units (the example service split by file), reviewed two ways."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from filelock import FileLock

from aidlc_review.cli.main import main
from aidlc_review.harness.layout import PROJECT_ROOT

EXAMPLE = PROJECT_ROOT / "examples" / "inventory-service"
CLAIMS = {
    "u1-ledger": ["src/inventory/ledger.py", "tests/test_ledger.py"],
    "u2-pricing": ["src/inventory/pricing.py"],
    "u3-http": ["src/inventory/__init__.py", "src/inventory/http.py", "tests/test_http.py"],
}


def three_unit_workspace(where: Path) -> Path:
    shutil.copytree(EXAMPLE, where)
    construction = where / "aidlc-docs" / "construction"
    original = construction / "u1-stock-ledger" / "code-generation"
    for unit, paths in CLAIMS.items():
        folder = construction / unit / "code-generation"
        shutil.copytree(original, folder)
        manifest = {
            "stage": "code-generation",
            "unit": unit,
            "version": 1,
            "writes": [{"path": p} for p in paths],
        }
        (folder / "source-manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    shutil.rmtree(construction / "u1-stock-ledger")
    return where


def review(workspace: Path, unit: str) -> None:
    assert main(["review", "run", "--workspace", str(workspace), "--unit", unit]) in (0, 1)


def findings_of(workspace: Path, unit: str) -> Path:
    return workspace / "aidlc-docs/construction" / unit / "code-review/code-review-findings.json"


def session_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The temp folder every xdist worker of this test run shares (its own basetemp alone)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def build_once(where: Path, build: Callable[[Path], None]) -> Path:
    """``where``, built by ``build(where)`` once for every test worker that asks for it.

    The first to ask builds it under a lock (from scratch again if an earlier build failed),
    with cache and state dirs of its own (``where/cache``, ``where/state``) as a test has;
    the rest wait and find it. ``where`` must be in a folder they all share."""
    built = where.with_name(f"{where.name}.built")
    with FileLock(f"{where}.lock"):
        if not built.exists():
            shutil.rmtree(where, ignore_errors=True)
            where.mkdir(parents=True)
            with pytest.MonkeyPatch.context() as monkeypatch:
                for xdg in ("cache", "state"):
                    monkeypatch.setenv(f"XDG_{xdg.upper()}_HOME", str(where / xdg))
                build(where)
            built.touch()
    return where
