"""The sensors hook's work: each unit's sensors on the staged files it claims, read from the
tree the commit will hold (pre-commit stashes unstaged changes before a hook runs)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from aidlc_review.errors import InvalidInput
from aidlc_review.hooks.units import recorded_units
from aidlc_review.review.inputs.source_manifest import claimed_files, read_source_manifest
from aidlc_review.review.inputs.workspace_settings import load_settings
from aidlc_review.sensors import run_sensors
from aidlc_review.sensors.manifests import load_sensor_manifests, pick_manifests
from aidlc_review.sensors.results import CheckResult

# file-local checks, fast enough for a commit; coverage stays with `review run` and CI
COMMIT_SENSORS = ["formatter", "secret-scan", "linter", "type-check", "security"]


def sensors_on_staged(
    workspace: Path,
    staged: list[str],
    harness: Path | None,
    sensors: list[str] | None,
    progress: Callable[[str], None],
) -> dict[str, list[CheckResult]]:
    """``{unit: results}``: each unit's sensors on the staged files that unit claims."""
    manifests = pick_manifests(load_sensor_manifests(harness), sensors or COMMIT_SENSORS)
    wanted = {workspace_relative(workspace, name) for name in staged}
    settings = _severity_settings(workspace)
    results: dict[str, list[CheckResult]] = {}
    for unit, manifest in recorded_units(workspace, None).items():
        claimed = claimed_files(read_source_manifest(manifest, workspace), workspace)
        chosen = [path for path in claimed if path in wanted]
        if chosen:
            progress(f"{unit}: {len(chosen)} staged claimed file(s)")
            results[unit] = run_sensors(
                workspace, chosen, manifests, settings=settings, progress=progress
            )
    return results


def _severity_settings(workspace: Path) -> dict[str, Any]:
    """The workspace's severity overrides, so a commit is judged as the review judges it."""
    overrides = load_settings(workspace).severity
    return {"severity": overrides.for_sensors()} if overrides is not None else {}


def workspace_relative(workspace: Path, name: str) -> str:
    """A staged file as the manifests name it: relative to the workspace (pre-commit passes
    relative names; a person may pass absolute ones). Outside the workspace is bad input:
    no unit can claim it, and matching nothing would pass the hook silently."""
    root = workspace.resolve()
    path = Path(os.path.normpath(name))
    if path.is_absolute():
        path = path.parent.resolve() / path.name  # the folders as the workspace's; not the file
        inside = path.is_relative_to(root)
        path = path.relative_to(root) if inside else path
    else:
        inside = path.parts[:1] != ("..",)
    if not inside:
        raise InvalidInput(f"{name}: not inside the workspace {root}")
    return path.as_posix()
