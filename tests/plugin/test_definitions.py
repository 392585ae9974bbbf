"""The plugin's own definitions say what DESIGN §3.6 says, and the knowledge matches the runtime."""

from __future__ import annotations

import json
import re

from aidlc_review.compile.build import load_valid
from aidlc_review.harness.layout import PROJECT_ROOT, HarnessLayout

KNOWLEDGE = PROJECT_ROOT / "knowledge" / "aidlc-code-reviewer-agent"
ANSWER_SCHEMA = (
    PROJECT_ROOT / "compiler" / "aidlc_review" / "schemas" / "reviewer-answer.schema.json"
)
ALL_SCOPES = {
    "enterprise", "feature", "mvp", "classic", "infra", "bugfix",
    "refactor", "security-patch", "workshop", "poc", "express",
}  # fmt: skip


def graph():
    return load_valid(HarnessLayout.at(None), strict=True)[1]


def test_code_review_stage_is_the_designed_review_boundary():
    review = graph().stage("code-review")
    assert (review.phase, review.execution, review.for_each) == (
        "construction",
        "ALWAYS",
        "unit-of-work",
    )
    assert review.lead_agent == "aidlc-code-reviewer-agent"
    assert review.repair_agent == "aidlc-developer-agent"
    assert review.workspace_requires is True
    assert review.reviews == "code-generation"
    assert (review.passes_for("gated"), review.passes_for("autonomous")) == (2, 3)
    assert review.produces == ["code-review", "code-review-findings"]
    assert review.requires_stage == ["code-generation"]
    assert review.sensors == [
        "formatter",
        "secret-scan",
        "coverage",
        "linter",
        "type-check",
        "findings-schema",
        "security",
        "dependencies",
    ]
    assert set(review.scopes) == ALL_SCOPES - {"poc", "express"}
    required = {c.artifact for c in review.consumes if c.required}
    assert required == {"code-generation-plan", "code-summary", "requirements", "unit-of-work"}


def test_code_generation_keeps_plan_approval_but_no_embedded_reviewer():
    stages = graph()
    codegen = stages.stage("code-generation")
    assert codegen.reviewer is None and codegen.reviewer_max_iterations is None
    assert codegen.plan_approval == "required"
    assert codegen.produces == ["code-generation-plan", "code-summary", "traceability"]
    assert set(codegen.scopes) == ALL_SCOPES
    assert stages.producers_of("source-manifest") == []


def test_build_and_test_runs_after_code_review_and_reads_its_findings():
    build = graph().stage("build-and-test")
    assert "code-review" in build.requires_stage
    findings = [c for c in build.consumes if c.artifact == "code-review-findings"]
    assert [c.required for c in findings] == [False]


def test_design_stages_keep_the_architecture_reviewer():
    stages = graph()
    for slug in ("functional-design", "nfr-design", "infrastructure-design"):
        assert stages.stage(slug).reviewer == "aidlc-architecture-reviewer-agent"


def test_the_code_reviewer_persona_never_edits_source():
    text = (PROJECT_ROOT / "agents" / "aidlc-code-reviewer-agent.md").read_text()
    assert "never edits" in text and "## What you never do" in text


def test_checklist_headings_answer_format_and_runtime_schema_share_one_category_list():
    schema = json.loads(ANSWER_SCHEMA.read_text())
    categories = schema["$defs"]["AnswerFinding"]["properties"]["category"]["enum"]
    headings = re.findall(r"^## (\S+)$", (KNOWLEDGE / "checklist.md").read_text(), re.M)
    assert headings == categories
    answer_format = (KNOWLEDGE / "answer-format.md").read_text()
    for category in categories:
        assert f"`{category}`" in answer_format


def test_severity_definitions_cover_the_closed_set():
    text = (KNOWLEDGE / "severity.md").read_text()
    assert re.findall(r"^## (\S+)$", text, re.M) == ["critical", "major", "minor"]


def test_knowledge_is_bounded_to_one_reviewer_turn():
    total = sum(len(p.read_text()) for p in KNOWLEDGE.glob("*.md"))
    assert total < 12_000
    checklist = (KNOWLEDGE / "checklist.md").read_text()
    for area in (
        "DRY",
        "KISS",
        "YAGNI",
        "SOLID",
        "dead code",
        "secret",
        "migration",
        "acceptance criterion",
    ):
        assert area in checklist, area


def test_every_scope_file_exists_and_only_bugfix_poc_express_cap_reviews():
    harness = load_valid(HarnessLayout.at(None))[0]
    caps = {s.name: s.review_cap for s in harness.scopes}
    assert set(caps) == ALL_SCOPES
    assert {name for name, cap in caps.items() if cap} == {"bugfix", "poc", "express"}
    assert {cap for cap in caps.values() if cap} == {"advisory"}
