"""The verify hook's work: every reviewed unit's review, proven on the tree the commit will
hold (pre-commit stashes unstaged changes before a hook runs). A unit counts as reviewed
when its record has a review in it (findings, a receipt or the engine's baseline) even if
the commit deletes its findings document or its source manifest: deleting the record of a
review is not a way past it."""

from __future__ import annotations

from pathlib import Path

from aidlc_review.hooks.units import recorded_units
from aidlc_review.review.inputs.paths import (
    ENGINE_DIR,
    ENGINE_PLACEHOLDER_UNIT,
    STAGE,
    STAGE_LEVEL,
    default_record,
)
from aidlc_review.review.record.seal import ForgedState
from aidlc_review.review.record.verify import verify_answer
from aidlc_review.upstream.records import unit_folders


def stale_units(workspace: Path, record: Path | None) -> dict[str, list[str]]:
    """``{unit: reasons}`` for each reviewed unit whose review no longer holds."""
    stale: dict[str, list[str]] = {}
    for unit in sorted(set(recorded_units(workspace, record)) | reviewed_units(workspace, record)):
        try:
            # on every commit: not the tests; bytes this machine already proved answer from
            # its sealed answer; a unit not reviewed yet (code generation is going on) passes
            _paths, reasons, _unproven = verify_answer(
                workspace, unit, record, None, ready=False, unreviewed_passes=True
            )
        except ForgedState as exc:
            stale[unit] = [str(exc)]
            continue
        if reasons:
            stale[unit] = reasons
    return stale


def reviewed_units(workspace: Path, record: Path | None) -> set[str]:
    """Units with a review in the record: a code-review folder or the engine's state."""
    base = record or default_record(workspace)
    folders = [d / STAGE for d in unit_folders(base).values()]
    folders += [*base.glob(f"{ENGINE_DIR}/{STAGE}/*")]
    named = {f.parent.name if f.name == STAGE else f.name for f in folders if f.is_dir()}
    return named - {STAGE_LEVEL, ENGINE_PLACEHOLDER_UNIT}  # the stage level is no unit
