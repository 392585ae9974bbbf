"""The verify hook's work: every reviewed unit's freshness, on the tree the commit will hold
(pre-commit stashes unstaged changes before a hook runs). It runs on every commit, so it
imports the receipt check only, never the sensors."""

from __future__ import annotations

from pathlib import Path

from aidlc_review.hooks.units import recorded_units
from aidlc_review.review.paths import RecordPaths
from aidlc_review.review.verify import verify_review


def stale_units(workspace: Path, record: Path | None) -> dict[str, list[str]]:
    """``{unit: reasons}`` for each reviewed unit whose receipt no longer holds."""
    stale: dict[str, list[str]] = {}
    for unit in recorded_units(workspace, record):
        paths = RecordPaths.resolve(workspace, unit, record, None)
        if not paths.findings.is_file():
            continue  # not reviewed yet: code generation is still going on
        reasons = verify_review(workspace, unit, record)
        if reasons:
            stale[unit] = reasons
    return stale
