"""Compile a harness: load, validate, build the graph, render the outputs in memory.

Nothing is written here; the caller writes the rendered files (all or none).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from aidlc_review.compiled import render, scope_grid_doc, stage_graph_doc
from aidlc_review.errors import Diagnostic, ValidationFailed
from aidlc_review.graph import StageGraph
from aidlc_review.layout import HarnessLayout
from aidlc_review.loader import Harness, load_harness
from aidlc_review.validate import validate

STAGE_GRAPH = "stage-graph.json"
SCOPE_GRID = "scope-grid.json"
SCOPE_PLANS = "scope-plans.json"


@dataclass
class Compiled:
    harness: Harness
    graph: StageGraph
    outputs: dict[str, str] = field(default_factory=dict)
    warnings: list[Diagnostic] = field(default_factory=list)


def uses_plugin(harness: Harness) -> bool:
    """True when a stage uses this plugin's extensions (then scope plans are compiled too)."""
    return any(
        s.reviews or s.max_passes or s.plan_approval or s.repair_agent for s in harness.stages
    )


def load_valid(
    layout: HarnessLayout, strict: bool = False
) -> tuple[Harness, StageGraph, list[Diagnostic]]:
    """Load and validate; raise ValidationFailed with every error at once."""
    harness = load_harness(layout)
    errors, warnings = validate(harness, strict=strict)
    if errors:
        raise ValidationFailed(errors)
    return harness, StageGraph(harness.stages), warnings


def compile_harness(layout: HarnessLayout, display_root: str, strict: bool = False) -> Compiled:
    harness, graph, warnings = load_valid(layout, strict)
    result = Compiled(harness, graph, warnings=warnings)
    result.outputs[STAGE_GRAPH] = render(
        stage_graph_doc(graph, harness.sensors, harness.sensor_paths, display_root)
    )
    scope_names = [s.name for s in harness.scopes]
    result.outputs[SCOPE_GRID] = render(scope_grid_doc(graph, scope_names))
    if uses_plugin(harness):
        from aidlc_review.plans import scope_plans_doc

        result.outputs[SCOPE_PLANS] = render(scope_plans_doc(graph, harness.scopes))
    return result
