"""The hooks' work: every reviewed unit's freshness; the sensors on staged claimed files.

pre-commit stashes unstaged changes before a hook runs, so the working tree the checks
read is what the commit will hold.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from aidlc_review.hooks.units import recorded_units
from aidlc_review.review.api import verify_review
from aidlc_review.review.paths import RecordPaths
from aidlc_review.review.source_manifest import claimed_files, read_source_manifest
from aidlc_review.sensors import run_sensors
from aidlc_review.sensors.manifests import load_sensor_manifests, pick_manifests
from aidlc_review.sensors.results import CheckResult

# file-local checks, fast enough for a commit; coverage stays with `review run` and CI
COMMIT_SENSORS = ["formatter", "secret-scan", "linter", "type-check", "security"]


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


def sensors_on_staged(
    workspace: Path,
    staged: list[str],
    harness: Path | None,
    sensors: list[str] | None,
    progress: Callable[[str], None],
) -> dict[str, list[CheckResult]]:
    """``{unit: results}``: each unit's sensors on the staged files that unit claims."""
    manifests = pick_manifests(load_sensor_manifests(harness), sensors or COMMIT_SENSORS)
    wanted = {Path(name).as_posix() for name in staged}
    results: dict[str, list[CheckResult]] = {}
    for unit, manifest in recorded_units(workspace, None).items():
        claimed = claimed_files(read_source_manifest(manifest, workspace), workspace)
        chosen = [path for path in claimed if path in wanted]
        if chosen:
            progress(f"{unit}: {len(chosen)} staged claimed file(s)")
            results[unit] = run_sensors(workspace, chosen, manifests, progress=progress)
    return results
