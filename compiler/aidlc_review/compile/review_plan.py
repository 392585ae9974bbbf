"""The review plan of a validated harness (``harness.review_plan`` has its shape).

Every stage that reviews another (``reviews:``) gets an entry: its lead agent reviews, its
repair agent repairs, its passes per mode, its sensors resolved to their manifests (a
manifest without a ``runner`` block, an upstream harness's own eslint or tsc one, stands
aside for this plugin's manifest of the same id, which the runtime can run), and the
scopes it executes in. An installed harness's plan is built by ``install`` from the stage
as authored (``overrides``) and says what install put where (``installed``).
"""

from __future__ import annotations

from typing import Any

from aidlc_review.compile.graph import StageGraph
from aidlc_review.harness.definitions.sensor import SensorManifest
from aidlc_review.harness.definitions.stage import Stage
from aidlc_review.harness.layout import HarnessLayout
from aidlc_review.harness.loader import Harness, load_harness
from aidlc_review.harness.review_plan import InstalledParts, ReviewedStage, ReviewPlan


def review_plan(
    harness: Harness,
    graph: StageGraph,
    overrides: dict[str, dict[str, Any]] | None = None,
    installed: InstalledParts | None = None,
) -> ReviewPlan | None:
    """The plan, or None when no stage of the harness reviews another."""
    overrides = overrides or {}
    stages = {}
    for stage in sorted(harness.stages, key=lambda s: s.slug):
        authored = overrides.get(stage.slug)
        if stage.reviews is None and authored is None:
            continue
        stages[stage.slug] = _reviewed(stage, harness, graph, authored or {})
    if not stages:
        return None
    return ReviewPlan(stages=stages, installed=installed)


def _reviewed(
    stage: Stage, harness: Harness, graph: StageGraph, authored: dict[str, Any]
) -> ReviewedStage:
    passes = authored.get("max_passes") or (
        stage.max_passes.model_dump() if stage.max_passes else {}
    )
    by_id = {m.id: m for m in harness.sensors}
    sensors = _runnable([by_id[s] for s in stage.sensors if s in by_id])
    return ReviewedStage(
        slug=stage.slug,
        reviews=authored.get("reviews") or stage.reviews or "",
        lead_agent=authored.get("reviewer") or stage.lead_agent,
        repair_agent=authored.get("repair_agent") or stage.repair_agent or stage.lead_agent,
        max_passes={mode: int(n) for mode, n in sorted(passes.items())},
        sensors=sensors,
        scopes=sorted(s for s in _scopes(harness) if graph.executes(stage.slug, s)),
    )


def _scopes(harness: Harness) -> list[str]:
    return [scope.name for scope in harness.scopes]


def _runnable(manifests: list[SensorManifest]) -> list[SensorManifest]:
    if all(m.runner is not None for m in manifests):
        return manifests
    plugin = {m.id: m for m in load_harness(HarnessLayout.at(None)).sensors}
    return [m if m.runner is not None or m.id not in plugin else plugin[m.id] for m in manifests]
