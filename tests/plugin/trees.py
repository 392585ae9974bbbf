"""Real harness trees in tmp dirs: a copy of this project's own definitions, or of upstream's."""

from __future__ import annotations

import shutil
from pathlib import Path

from aidlc_review.harness.layout import PROJECT_ROOT

UPSTREAM = PROJECT_ROOT.parent / "shared" / "aidlc-harness"
DEFINITION_DIRS = ("stages", "scopes", "agents", "knowledge", "sensors")


def copy_project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    for name in DEFINITION_DIRS:
        shutil.copytree(PROJECT_ROOT / name, root / name)
    return root


def copy_upstream(tmp_path: Path) -> Path:
    root = tmp_path / "harness"
    shutil.copytree(UPSTREAM, root)
    return root


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` by relative path, for byte-for-byte comparisons."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }
