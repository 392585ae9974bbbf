"""Findings at the base: what makes a finding pre-existing (DESIGN.md §9).

A sensor finding on a line the unit did not change is pre-existing only if the same finding
is reported on the base's bytes: the same line-independent fingerprint, after the same
grouping (one finding per file and defect, its print the set of its hits). A change that
makes an unchanged line wrong (it deletes the only use of an import, it changes a signature
another file calls) owns what it caused.

The base's files are exported from git into a scratch folder outside the workspace (with
the repository's history linked, so a suppression or a configuration the base holds reads
as the base's own) and judged there by the unit's static sensors with the unit's settings
(the tests are not run: the coverage sensor's findings are judged by their lines alone).
The answer is kept in the authenticated result cache, keyed by the base commit, the files
and the sensors.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from aidlc_review.review.inputs.unit import UnitContext

SELF_CHECK = "findings-schema"  # reads the record, not the source
# per-run settings that describe the change, not the base: the base run takes none of them
CHANGE_SETTINGS = ("base_revision", "findings_path", "coverage_command", "coverage_data_file")


def findings_at_base(ctx: UnitContext, base: str, files: Iterable[str]) -> frozenset[str] | None:
    """The fingerprints the unit's static sensors report on ``files`` as they stood at
    ``base``; None when the base cannot be exported (then nothing is proven pre-existing)."""
    from aidlc_review.sensors.cache import ResultCache, default_cache_dir, digest
    from aidlc_review.sensors.registry import RUNS_PROJECT_CODE

    sensors = [
        m
        for m in ctx.sensors
        if m.runner is not None and m.runner.name not in RUNS_PROJECT_CODE and m.id != SELF_CHECK
    ]
    settings: dict[str, Any] = dict(ctx.sensor_settings(at=base))
    for name in (*CHANGE_SETTINGS, "in_force"):
        settings.pop(name, None)
    settings["judged_at"] = base
    claimed = sorted(files)
    manifests = [m.model_dump(mode="json") for m in sensors]
    key = "at-base/2:" + digest(base, claimed, manifests, settings)
    cache = ResultCache(default_cache_dir())
    try:
        known = cache.get(key)
        if isinstance(known, list):
            return frozenset(known)
        prints = _judge_base(ctx.paths.workspace, base, claimed, sensors, settings)
        if prints is not None:
            cache.put_many({key: sorted(prints)})
        return prints
    finally:
        cache.close()


def _judge_base(
    workspace: Path, base: str, claimed: list[str], sensors: list[Any], settings: dict[str, Any]
) -> frozenset[str] | None:
    from aidlc_review.dirs import cache_dir
    from aidlc_review.review.findings.grouping import group_hits
    from aidlc_review.review.run.engine import sensor_observations
    from aidlc_review.sensors import run_sensors
    from aidlc_review.sensors.judging_tree import base_tree

    scratch = Path(cache_dir("at-base"))
    scratch.mkdir(parents=True, exist_ok=True)
    with base_tree(workspace, base, scratch) as tree:
        if tree is None:
            return None
        present = [name for name in claimed if (tree / name).is_file()]
        results = run_sensors(tree, present, sensors, settings=settings)
        return frozenset(o.fingerprint for o in group_hits(sensor_observations(results)))
