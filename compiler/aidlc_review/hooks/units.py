"""The units a workspace's record has source manifests for, and what each claims."""

from __future__ import annotations

from pathlib import Path

from aidlc_review.review.inputs.paths import ENGINE_PLACEHOLDER_UNIT, default_record
from aidlc_review.upstream.records import unit_folders

MANIFEST = Path("code-generation") / "source-manifest.json"


def recorded_units(workspace: Path, record: Path | None) -> dict[str, Path]:
    """``{unit: its source-manifest.json}`` for every unit under ``<record>/construction/``
    (``construction/units/`` where the engine keeps them there: ``upstream.names``)."""
    folders = unit_folders(record or default_record(workspace))
    units = {unit: folder / MANIFEST for unit, folder in folders.items()}
    units = {unit: path for unit, path in units.items() if path.is_file()}
    units.pop(ENGINE_PLACEHOLDER_UNIT, None)  # upstream 2.5's stage-level folder: no unit
    return units


def touched_units(workspace: Path, record: Path | None, changed: list[str]) -> list[str]:
    """The units a change touches: one of their claimed files or their record changed.

    A claimed directory (``src/gen/``) covers every path under it, deleted ones included."""
    from aidlc_review.review.inputs.source_manifest import read_source_manifest

    wanted = [Path(name).as_posix() for name in changed]
    touched: list[str] = []
    for unit, manifest in recorded_units(workspace, record).items():
        source = read_source_manifest(manifest, workspace)
        claims = [c.path for c in source.claims if c.repo is None]
        unit_record = manifest.parents[1].resolve()
        if unit_record.is_relative_to(workspace.resolve()):
            claims.append(unit_record.relative_to(workspace.resolve()).as_posix() + "/")
        if any(_covers(claim, path) for claim in claims for path in wanted):
            touched.append(unit)
    return touched


def _covers(claim: str, path: str) -> bool:
    return path.startswith(claim) if claim.endswith("/") else path == claim
