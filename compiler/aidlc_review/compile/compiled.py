"""The compiled artifacts: ``stage-graph.json`` and ``scope-grid.json``.

Key order, omitted absent keys, 2-space indent and the trailing newline follow
the reference compiler byte for byte. This plugin's extension keys sit after
upstream's review keys, so a harness that does not use them compiles exactly
as upstream's does.
"""

from __future__ import annotations

from typing import Any

from aidlc_review.compile.graph import StageGraph
from aidlc_review.fsio import dump_json
from aidlc_review.harness.definitions.dialect import SOURCE, Dialect
from aidlc_review.harness.definitions.sensor import SensorManifest
from aidlc_review.harness.definitions.stage import DEFAULT_REVIEWER_ITERATIONS, Stage
from aidlc_review.harness.names import display_name
from aidlc_review.upstream import names

SPACE = "default"
MEMORY = f"{names.SPACES}/{SPACE}/memory"

# Authored keys in output order; computed keys are placed around them.
NODE_KEYS = (
    "plugin",
    "phase",
    "execution",
    "condition",
    "lead_agent",
    "support_agents",
    "mode",
    "for_each",
    "workspace_requires",
    "produces",
    "optional_produces",
    "produces_kinds",
    "consumes",
    "requires_stage",
    "sensors",
    "scopes",
    "reviewer",
    "reviewer_max_iterations",
    "review_class",
    "review_artifact",
    "summary_confirmation",
    "repair_agent",
    "reviews",
    "max_passes",
    "plan_approval",
    "ars",
    "inputs",
    "outputs",
)
ALWAYS_LISTED = frozenset({"sensors", "scopes"})
# Stage fields that deliberately never reach the node, and why.
EXCLUDED_FIELDS = {
    "number": "a hint only: the compiled number comes from the graph",
    "when": "upstream's compiler validates it but does not compile it into the node",
    "required_sections": "upstream's compiler validates it but does not compile it into the node",
}


def rules_in_context(stage: Stage) -> list[dict[str, str]]:
    rules = [
        {"path": f"{MEMORY}/org.md", "scope": "org"},
        {"path": f"{MEMORY}/team.md", "scope": "team"},
        {"path": f"{MEMORY}/project.md", "scope": "project"},
    ]
    if stage.phase != "initialization":
        rules.append({"path": f"{MEMORY}/phases/{stage.phase}.md", "scope": "phase"})
    return rules


def sensor_entry(sensor: SensorManifest, manifest_path: str, display_root: str) -> dict[str, Any]:
    prefix = display_root.strip("/")
    entry: dict[str, Any] = {
        "id": sensor.id,
        "path": f"{prefix}/{manifest_path}" if prefix else manifest_path,
    }
    if sensor.fire_on is not None:
        entry["fire_on"] = sensor.fire_on
    entry["matches"] = sensor.matches
    return entry


def stage_node(
    stage: Stage,
    number: str,
    sensors: dict[str, SensorManifest],
    sensor_paths: dict[str, str],
    display_root: str,
    dialect: Dialect = SOURCE,
) -> dict[str, Any]:
    authored = stage.model_dump(mode="json", exclude_none=True)
    if stage.reviewer is not None:
        # Like upstream, the node always carries the cap of a stage with a reviewer ...
        authored.setdefault("reviewer_max_iterations", DEFAULT_REVIEWER_ITERATIONS)
        if dialect.node_review_class:
            # ... and, where the engine's node has one, its class (the strongest unless given)
            authored.setdefault("review_class", dialect.strongest_class)
    node: dict[str, Any] = {
        "slug": stage.slug,
        "number": number,
        "name": display_name(stage.slug, stage.name),
    }
    for key in NODE_KEYS:
        if key in authored:
            node[key] = authored[key]
        elif key in ALWAYS_LISTED:
            node[key] = []
    node["rules_in_context"] = rules_in_context(stage)
    node["sensors_applicable"] = [
        sensor_entry(sensors[sid], sensor_paths[sid], display_root)
        for sid in stage.sensors
        if sid in sensors
    ]
    return node


def stage_graph_doc(
    graph: StageGraph,
    sensors: list[SensorManifest],
    sensor_paths: dict[str, str],
    display_root: str,
    dialect: Dialect = SOURCE,
) -> list[dict[str, Any]]:
    numbers = graph.numbers()
    by_id = {s.id: s for s in sensors}
    return [
        stage_node(s, numbers[s.slug], by_id, sensor_paths, display_root, dialect)
        for s in graph.ordered()
    ]


def scope_grid_doc(graph: StageGraph) -> dict[str, Any]:
    """Upstream's transpose: a column per scope some stage names (a scope file alone
    adds none), and initialization stages execute in every scope."""
    ordered = graph.ordered()
    named = {scope for stage in ordered for scope in stage.scopes}
    grid: dict[str, Any] = {}
    for scope in sorted(named):
        grid[scope] = {
            "stages": {
                s.slug: "EXECUTE" if scope in s.scopes or s.phase == "initialization" else "SKIP"
                for s in ordered
            }
        }
    return grid


def render(doc: Any) -> str:
    return dump_json(doc)
