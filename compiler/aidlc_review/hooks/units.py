"""The units a workspace's record has source manifests for, and what each claims."""

from __future__ import annotations

from pathlib import Path

from aidlc_review.review.paths import default_record

MANIFEST = Path("code-generation") / "source-manifest.json"


def recorded_units(workspace: Path, record: Path | None) -> dict[str, Path]:
    """``{unit: its source-manifest.json}`` for every unit under ``<record>/construction/``."""
    base = (record or default_record(workspace)) / "construction"
    found = sorted(base.glob(f"*/{MANIFEST.as_posix()}")) if base.is_dir() else []
    return {path.parents[1].name: path for path in found}
