"""Execution plans of the project's own harness: 11 scopes x 2 construction modes (DESIGN §3.5)."""

from __future__ import annotations

import json

import pytest

from aidlc_review.cli.main import main
from aidlc_review.compile.build import load_valid
from aidlc_review.compile.plans import resolve_plan, scope_plans_doc
from aidlc_review.harness.layout import HarnessLayout

SCOPES = (
    "enterprise", "feature", "mvp", "classic", "infra", "bugfix",
    "refactor", "security-patch", "workshop", "poc", "express",
)  # fmt: skip
NO_REVIEW = ("poc", "express")
DESIGN_STAGES = ("functional-design", "nfr-design", "infrastructure-design")
ADVISORY_SCOPES = ("bugfix", "poc", "express")


def plan_json(capsys, scope: str, mode: str) -> dict:
    capsys.readouterr()
    assert main(["plan", "--scope", scope, "--mode", mode, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def by_slug(plan: dict) -> dict[str, dict]:
    return {stage["slug"]: stage for stage in plan["stages"]}


def gate(kind, per, status="active", replaced_by=None) -> dict:
    return {"kind": kind, "per": per, "status": status, "replaced_by": replaced_by}


@pytest.mark.parametrize("mode", ["gated", "autonomous"])
@pytest.mark.parametrize("scope", SCOPES)
def test_every_scope_and_mode_resolves_code_generation_and_code_review(capsys, scope, mode):
    plan = plan_json(capsys, scope, mode)
    stages = by_slug(plan)
    decision_per = "unit" if mode == "gated" else "stage"
    assert (plan["scope"], plan["mode"]) == (scope, mode)
    assert stages["code-generation"]["gates"][0] == gate("plan-approval", "unit")
    if scope in NO_REVIEW:
        assert "code-review" not in stages
        assert stages["code-generation"]["gates"][1] == gate("completion", decision_per)
    else:
        assert stages["code-generation"]["gates"][1] == gate(
            "completion", decision_per, "suppressed", "code-review"
        )
        review = stages["code-review"]
        assert review["gates"] == [gate("review", decision_per)]
        assert review["max_passes"] == (2 if mode == "gated" else 3)
        assert review["repair_agent"] == "aidlc-developer-agent"
        assert review["review_class"] == "blocking"
    assert stages["code-generation"]["reviewer"] is None
    assert stages["code-generation"]["max_passes"] is None
    slugs = [s["slug"] for s in plan["stages"]]
    assert slugs.index("code-generation") < slugs.index("build-and-test")
    active = [g for s in plan["stages"] for g in s["gates"] if g["status"] == "active"]
    assert plan["gate_counts"] == {
        "per_unit": sum(g["per"] == "unit" for g in active),
        "per_stage": sum(g["per"] == "stage" for g in active),
    }


@pytest.mark.parametrize("mode", ["gated", "autonomous"])
@pytest.mark.parametrize("scope", SCOPES)
def test_design_stages_keep_their_architecture_reviewer(capsys, scope, mode):
    stages = by_slug(plan_json(capsys, scope, mode))
    for slug in DESIGN_STAGES:
        if slug in stages:
            assert stages[slug]["reviewer"] == "aidlc-architecture-reviewer-agent"
            assert stages[slug]["repair_agent"] == "aidlc-architect-agent"
            assert stages[slug]["max_passes"] == 2
            expected_class = "advisory" if scope in ADVISORY_SCOPES else "blocking"
            assert stages[slug]["review_class"] == expected_class


def test_feature_gated_replaces_code_generation_completion_with_per_unit_review(capsys):
    plan = plan_json(capsys, "feature", "gated")
    stages = by_slug(plan)
    assert stages["code-generation"]["gates"] == [
        gate("plan-approval", "unit"),
        gate("completion", "unit", "suppressed", "code-review"),
    ]
    assert stages["code-review"]["gates"] == [gate("review", "unit")]
    assert stages["code-review"]["number"] == "3.5"
    assert stages["code-generation"]["number"] == "3.4"
    assert plan["gate_counts"] == {"per_unit": 5, "per_stage": 4}


def test_feature_autonomous_has_one_aggregate_review_gate(capsys):
    plan = plan_json(capsys, "feature", "autonomous")
    stages = by_slug(plan)
    assert stages["code-review"]["gates"] == [gate("review", "stage")]
    assert stages["code-review"]["max_passes"] == 3
    assert stages["code-generation"]["gates"][0] == gate("plan-approval", "unit")
    assert plan["gate_counts"] == {"per_unit": 4, "per_stage": 5}


@pytest.mark.parametrize("scope", NO_REVIEW)
def test_poc_and_express_keep_code_generation_completion_and_have_no_code_review(capsys, scope):
    plan = plan_json(capsys, scope, "gated")
    assert [s["slug"] for s in plan["stages"]] == [
        "requirements-analysis",
        "code-generation",
        "build-and-test",
    ]
    assert by_slug(plan)["code-generation"]["gates"] == [
        gate("plan-approval", "unit"),
        gate("completion", "unit"),
    ]
    assert plan["gate_counts"] == {"per_unit": 2, "per_stage": 2}


def test_bugfix_review_cap_lowers_embedded_reviewers_but_never_code_review(capsys):
    for mode, passes in (("gated", 2), ("autonomous", 3)):
        plan = plan_json(capsys, "bugfix", mode)
        stages = by_slug(plan)
        assert plan["review_cap"] == "advisory"
        assert stages["requirements-analysis"]["review_class"] == "advisory"
        assert stages["code-review"]["review_class"] == "blocking"
        assert stages["code-review"]["max_passes"] == passes
        assert stages["code-review"]["gates"][0]["status"] == "active"


def test_scope_plans_json_holds_every_scope_and_mode_and_is_deterministic():
    harness, graph, _ = load_valid(HarnessLayout.at(None))
    doc = scope_plans_doc(graph, harness.scopes)
    assert doc["version"] == 1
    assert list(doc["scopes"]) == sorted(SCOPES)
    for scope, modes in doc["scopes"].items():
        assert list(modes) == ["gated", "autonomous"]
        assert (
            modes["gated"]
            == resolve_plan(graph, scope, "gated", modes["gated"]["review_cap"]).to_json()
        )
    reversed_scopes = list(reversed(harness.scopes))
    assert scope_plans_doc(graph, reversed_scopes) == doc


def test_human_plan_is_a_table_naming_the_replacement(capsys):
    capsys.readouterr()
    assert main(["plan", "--scope", "feature", "--mode", "gated"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "scope feature, gated construction (review cap: none)"
    assert "plan-approval/unit, completion/unit suppressed -> code-review" in out
    assert out.splitlines()[-1] == "active gates: 5 per unit, 4 per stage"


def test_unknown_scope_is_invalid_input_with_a_suggestion(capsys):
    assert main(["plan", "--scope", "featur", "--mode", "gated"]) == 2
    assert capsys.readouterr().err == (
        "unknown scope 'featur' (did you mean 'feature'?); known scopes: bugfix, classic, "
        "enterprise, express, feature, infra, mvp, poc, refactor, security-patch, workshop\n"
    )


def test_unknown_mode_is_a_usage_error(capsys):
    assert main(["plan", "--scope", "feature", "--mode", "fast"]) == 2
    assert "argument --mode: invalid choice: 'fast'" in capsys.readouterr().err
