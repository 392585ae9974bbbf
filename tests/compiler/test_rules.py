"""The pure rules of the compiler, tested directly: which stage fields reach the
compiled node, how stages are numbered, and how gates are resolved (DESIGN §3.4, §3.5)."""

from __future__ import annotations

import itertools

import pytest

from aidlc_review.compile.compiled import ALWAYS_LISTED, EXCLUDED_FIELDS, NODE_KEYS, stage_node
from aidlc_review.compile.gates import (
    ACTIVE,
    COMPLETION,
    PER_STAGE,
    PER_UNIT,
    PLAN_APPROVAL,
    REVIEW,
    SUPPRESSED,
    Gate,
    resolve_gates,
)
from aidlc_review.compile.graph import StageGraph
from aidlc_review.harness.definitions.stage import Stage

# Keys the compiled node computes itself; model fields left out of it are in EXCLUDED_FIELDS.
COMPUTED = {"slug", "name"}


def stage(slug: str, phase: str = "construction", requires: tuple[str, ...] = (), **extra) -> Stage:
    fields = {
        "slug": slug,
        "phase": phase,
        "execution": "ALWAYS",
        "condition": "Always.",
        "lead_agent": "aidlc-dev-agent",
        "support_agents": [],
        "mode": "inline",
        "produces": [slug],
        "consumes": [],
        "requires_stage": list(requires),
        "inputs": "in",
        "outputs": "out",
        **extra,
    }
    return Stage.model_validate(fields)


# --- every stage field reaches stage-graph.json, or is excluded on purpose ---


def test_every_stage_field_is_compiled_computed_or_deliberately_excluded():
    fields = set(Stage.model_fields)
    placed = set(NODE_KEYS) | COMPUTED | set(EXCLUDED_FIELDS)
    assert fields - placed == set(), "add the field to compiled.NODE_KEYS (or EXCLUDED_FIELDS)"
    assert placed - fields == set(), "NODE_KEYS names a field the Stage model does not have"


def test_a_stage_using_every_field_compiles_each_one_into_its_node():
    full = stage(
        "acme-check",
        name="Check It",
        number="3.9",
        for_each="unit-of-work",
        workspace_requires=True,
        optional_produces=["extra"],
        produces_kinds={"acme-check": ["service"]},
        sensors=["lint"],
        scopes=["feature"],
        reviews="build",
        repair_agent="aidlc-fixer-agent",
        max_passes={"gated": 2, "autonomous": 3},
        plan_approval="required",
        review_artifact="check",
        summary_confirmation=True,
        plugin="acme",
        when={"producer-in-plan": "check"},
        ars=True,
        required_sections=["Summary"],
    )
    with_reviewer = stage(
        "design", reviewer="aidlc-arch-agent", reviewer_max_iterations=3, review_class="blocking"
    )
    node = stage_node(full, "3.1", {}, {}, ".claude")
    reviewed = stage_node(with_reviewer, "3.2", {}, {}, ".claude")
    set_fields = full.model_fields_set | with_reviewer.model_fields_set
    compiled = (set(node) | set(reviewed)) - {"number", "rules_in_context", "sensors_applicable"}
    assert compiled == (set_fields - set(EXCLUDED_FIELDS)) | ALWAYS_LISTED
    assert node["name"] == "Check It" and node["number"] == "3.1"


# --- numbering: lexicographic topological order within each phase ---


def _numbers(*stages: Stage) -> dict[str, str]:
    return StageGraph(stages).numbers()


def test_unrelated_stages_are_numbered_alphabetically_whatever_the_file_order():
    stages = [stage("zeta"), stage("alpha"), stage("mid")]
    expected = {"alpha": "3.1", "mid": "3.2", "zeta": "3.3"}
    for order in itertools.permutations(stages):
        assert _numbers(*order) == expected


def test_a_requirement_comes_first_then_the_smallest_available_slug():
    stages = [stage("b", requires=("c",)), stage("a"), stage("c"), stage("d", requires=("a",))]
    expected = {"a": "3.1", "c": "3.2", "b": "3.3", "d": "3.4"}
    for order in itertools.permutations(stages):
        assert _numbers(*order) == expected


def test_each_phase_counts_from_one_with_its_own_index():
    stages = [
        stage("ship", phase="operation"),
        stage("build", requires=("plan",)),
        stage("plan", phase="inception"),
        stage("boot", phase="initialization"),
        stage("idea", phase="ideation"),
        stage("audit"),
    ]
    assert _numbers(*stages) == {
        "boot": "0.1",
        "idea": "1.1",
        "plan": "2.1",
        "audit": "3.1",
        "build": "3.2",
        "ship": "4.1",
    }


@pytest.mark.parametrize("seed", range(40))
def test_the_numbers_are_networkx_lexicographical_topological_sort(seed: int):
    """networkx is the oracle: the numbering itself runs on the standard library's graphlib."""
    import random

    import networkx as nx

    rng = random.Random(seed)
    slugs = rng.sample([f"{a}{b}" for a in "abcdefgh" for b in "xyz"], k=rng.randint(1, 20))
    # each stage may require stages before it in this random order: no cycle, and an
    # order that is not the alphabet's
    requires = {s: [r for r in slugs[:i] if rng.random() < 0.3] for i, s in enumerate(slugs)}
    rng.shuffle(slugs)  # and any file order
    dag = nx.DiGraph()
    dag.add_nodes_from(slugs)
    dag.add_edges_from((r, s) for s in slugs for r in requires[s])
    expected = {
        slug: f"3.{n}" for n, slug in enumerate(nx.lexicographical_topological_sort(dag), 1)
    }
    assert _numbers(*(stage(s, requires=tuple(requires[s])) for s in slugs)) == expected


def test_ordered_follows_the_numbers_not_the_input():
    graph = StageGraph([stage("ship", phase="operation"), stage("b"), stage("a")])
    assert graph.topo() == ["a", "b", "ship"]


# --- upstream stages and cycles ---


def test_upstream_stages_are_every_requirement_direct_or_through_others():
    graph = StageGraph(
        [stage("a"), stage("b", requires=("a",)), stage("c", requires=("b", "ghost")), stage("d")]
    )
    assert graph.ancestors("c") == {"a", "b"}  # an unknown slug is validation's to report
    assert graph.ancestors("a") == set() and graph.ancestors("d") == set()


def test_a_stage_on_a_cycle_is_not_its_own_upstream():
    graph = StageGraph(
        [stage("a", requires=("c",)), stage("b", requires=("a",)), stage("c", requires=("b",))]
    )
    assert graph.ancestors("a") == {"b", "c"}


def test_every_cycle_is_listed_once_from_its_smallest_slug():
    graph = StageGraph(
        [
            stage("a", requires=("b",)),
            stage("b", requires=("a",)),
            stage("self", requires=("self",)),
            stage("x", requires=("z",)),
            stage("y", requires=("x",)),
            stage("z", requires=("y",)),
            stage("free"),
        ]
    )
    assert graph.cycles() == [["a", "b"], ["self"], ["x", "y", "z"]]
    assert StageGraph([stage("a"), stage("b", requires=("a", "a"))]).cycles() == []


# --- gate resolution ---


def _pipeline(code_review_scopes: list[str]) -> StageGraph:
    return StageGraph(
        [
            stage(
                "code-generation",
                for_each="unit-of-work",
                workspace_requires=True,
                plan_approval="required",
                scopes=["feature", "poc"],
            ),
            stage(
                "code-review",
                requires=("code-generation",),
                for_each="unit-of-work",
                workspace_requires=True,
                reviews="code-generation",
                scopes=code_review_scopes,
            ),
            stage("build-and-test", requires=("code-review",), scopes=["feature", "poc"]),
            stage("design", for_each="unit-of-work", scopes=["feature", "poc"]),
        ]
    )


def _gates(graph: StageGraph, slug: str, scope: str, mode: str) -> list[Gate]:
    return resolve_gates(graph, graph.stage(slug), scope, mode)


def test_a_stage_without_for_each_has_one_completion_gate_per_stage_in_both_modes():
    graph = _pipeline(["feature"])
    for mode in ("gated", "autonomous"):
        assert _gates(graph, "build-and-test", "feature", mode) == [Gate(COMPLETION, PER_STAGE)]


def test_a_per_unit_design_stage_gates_each_unit_in_both_modes():
    graph = _pipeline(["feature"])
    for mode in ("gated", "autonomous"):
        assert _gates(graph, "design", "feature", mode) == [Gate(COMPLETION, PER_UNIT)]


def test_a_reviewed_stage_hands_its_completion_gate_to_its_reviewer_where_it_runs():
    graph = _pipeline(["feature"])
    assert _gates(graph, "code-generation", "feature", "gated") == [
        Gate(PLAN_APPROVAL, PER_UNIT),
        Gate(COMPLETION, PER_UNIT, SUPPRESSED, "code-review"),
    ]


def test_where_the_reviewer_does_not_run_the_reviewed_stage_keeps_its_own_gate():
    graph = _pipeline(["feature"])
    assert _gates(graph, "code-generation", "poc", "gated") == [
        Gate(PLAN_APPROVAL, PER_UNIT),
        Gate(COMPLETION, PER_UNIT, ACTIVE, None),
    ]


def test_autonomous_mode_aggregates_source_stage_gates_but_never_plan_approval():
    graph = _pipeline(["feature"])
    assert _gates(graph, "code-generation", "feature", "autonomous") == [
        Gate(PLAN_APPROVAL, PER_UNIT),
        Gate(COMPLETION, PER_STAGE, SUPPRESSED, "code-review"),
    ]
    assert _gates(graph, "code-review", "feature", "autonomous") == [Gate(REVIEW, PER_STAGE)]


def test_a_review_stage_presents_a_review_gate_per_unit_when_gated():
    graph = _pipeline(["feature"])
    assert _gates(graph, "code-review", "feature", "gated") == [Gate(REVIEW, PER_UNIT)]


@pytest.mark.parametrize("mode", ["gated", "autonomous"])
def test_plan_approval_without_for_each_is_once_per_stage(mode):
    graph = StageGraph([stage("plan-it", plan_approval="required")])
    assert _gates(graph, "plan-it", "feature", mode)[0] == Gate(PLAN_APPROVAL, PER_STAGE)


def test_gate_json_names_kind_per_status_and_replacement():
    gate = Gate(COMPLETION, PER_UNIT, SUPPRESSED, "code-review")
    assert gate.to_json() == {
        "kind": "completion",
        "per": "unit",
        "status": "suppressed",
        "replaced_by": "code-review",
    }
    assert not gate.active and Gate(COMPLETION, PER_UNIT).active
