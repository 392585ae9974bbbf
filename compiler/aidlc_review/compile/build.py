"""Compile a harness: load, validate, build the graph, render the outputs in memory.

Nothing is written here; the caller writes the rendered files (all or none).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from aidlc_review.compile.compiled import render, scope_grid_doc, stage_graph_doc
from aidlc_review.compile.graph import StageGraph
from aidlc_review.compile.validate import validate
from aidlc_review.diagnostics import Diagnostic
from aidlc_review.errors import InvalidInput, ValidationFailed
from aidlc_review.harness.layout import HarnessLayout
from aidlc_review.harness.loader import Harness, load_harness

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


def pinned_numbers(graph_file: Path) -> dict[str, str]:
    """slug -> number of an existing ``stage-graph.json`` (empty when there is none).

    The reference compiler keeps these numbers ("computed, then stable"), so ours does too.
    """
    if not graph_file.is_file():
        return {}
    try:
        nodes = json.loads(graph_file.read_text(encoding="utf-8"))
        return {str(n["slug"]): _number(n["number"]) for n in nodes}
    except (UnicodeDecodeError, json.JSONDecodeError, TypeError, KeyError, ValueError) as exc:
        raise InvalidInput(
            f"{graph_file}: not a stage graph (a JSON array of nodes with slug and number): {exc}"
        ) from None


def _number(value: object) -> str:
    prefix, index = str(value).split(".")
    return f"{int(prefix)}.{int(index)}"


def load_valid(
    layout: HarnessLayout, strict: bool = False, pinned: dict[str, str] | None = None
) -> tuple[Harness, StageGraph, list[Diagnostic]]:
    """Load and validate; raise ValidationFailed with every error at once."""
    harness = load_harness(layout)
    errors, warnings = validate(harness, strict=strict)
    if errors:
        raise ValidationFailed(errors)
    graph = StageGraph(harness.stages, pinned)
    misordered = graph.misordered_edges() if pinned else []
    if misordered:
        raise ValidationFailed(
            [
                Diagnostic(
                    f"tools/data/{STAGE_GRAPH}",
                    0,
                    "requires_stage",
                    f"{stage} requires {required}, which is numbered after it",
                )
                for required, stage in misordered
            ]
        )
    return harness, graph, warnings


def compile_harness(
    layout: HarnessLayout,
    display_root: str,
    strict: bool = False,
    pinned: dict[str, str] | None = None,
) -> Compiled:
    harness, graph, warnings = load_valid(layout, strict, pinned)
    result = Compiled(harness, graph, warnings=warnings)
    result.outputs[STAGE_GRAPH] = render(
        stage_graph_doc(graph, harness.sensors, harness.sensor_paths, display_root, harness.dialect)
    )
    result.outputs[SCOPE_GRID] = render(scope_grid_doc(graph))
    if uses_plugin(harness):
        from aidlc_review.compile.plans import scope_plans_doc

        result.outputs[SCOPE_PLANS] = render(
            scope_plans_doc(graph, harness.scopes, harness.dialect)
        )
        from aidlc_review.compile.review_plan import review_plan
        from aidlc_review.harness.review_plan import PLAN_FILE, render_review_plan

        plan = review_plan(harness, graph)
        if plan is not None:
            result.outputs[PLAN_FILE] = render_review_plan(plan)
    return result
