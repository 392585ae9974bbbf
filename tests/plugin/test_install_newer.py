"""Lowering for the newer engines' contracts, on the plugin's own texts (no engine needed):
the engine-written manifest replaces exactly the step that asked for one, and a harness
without an engine's tools is lowered as today."""

from __future__ import annotations

import pytest

from aidlc_review.errors import InvalidInput
from aidlc_review.harness.layout import plugin_root
from aidlc_review.install.blocks import remove_lines
from aidlc_review.install.contributions import load_contributions
from aidlc_review.install.newer import (
    REVIEW_SLOT_STEP,
    Lowering,
    manifest_step,
    pr_integration_edit,
    with_review_slot_step,
)
from aidlc_review.install.trial import kept_names


def _generation_prose() -> str:
    return load_contributions(plugin_root())["code-generation"].fragments[0].prose


def test_an_engine_checked_manifest_replaces_only_the_step_that_asked_for_a_second_one():
    prose = _generation_prose()

    lowered = manifest_step(prose)

    assert "write `source-manifest.json`" in prose
    assert "write `source-manifest.json`" not in lowered
    assert '"writes": [' not in lowered
    assert "do not write a second one" in " ".join(lowered.split())
    assert "this engine's own Code Generation step" in lowered
    assert lowered.startswith(prose[: prose.index("Code review reads")])
    assert lowered.endswith(prose[prose.index("**Autonomous construction") - 2 :])


def test_a_contribution_without_the_manifest_step_is_refused_naming_the_file():
    with pytest.raises(InvalidInput, match="code-generation.md: the step asking"):
        manifest_step("## Step\n\nNothing about manifests here.\n")


def test_the_review_slot_step_ends_the_installed_stage_once():
    stage = "---\nslug: code-review\n---\n\n# Code Review\n\nBody.\n\n"

    lowered = with_review_slot_step(stage)

    assert lowered == "---\nslug: code-review\n---\n\n# Code Review\n\nBody.\n" + REVIEW_SLOT_STEP
    assert lowered.count("## Engine review record") == 1


def test_a_harness_without_an_engine_is_lowered_as_it_always_was(tmp_path):
    lowering = Lowering.read(tmp_path)

    assert lowering == Lowering(
        review_artifact=False, write_budget=True, review_slot=False, engine_manifest=False
    )


PR_STAGE = (  # upstream's pr-integration frontmatter, shortened (docs/upstream-newer.md)
    "---\nslug: pr-integration\nproduces:\n  - pr-record\nconsumes:\n"
    "  - artifact: code-generation-plan\n    required: true\n"
    "  - artifact: code-summary\n    required: true\n"
    "requires_stage:\n  - code-generation\nscopes: []\n---\n\n# PR Integration\n"
)


def test_pr_integration_requires_code_review_and_consumes_its_report_after_its_own():
    edited, inserted = pr_integration_edit(PR_STAGE, "pr-integration.md")

    assert "requires_stage:\n  - code-generation\n  - code-review\nscopes" in edited
    assert (
        "  - artifact: code-summary\n    required: true\n"
        "  - artifact: code-review\n    required: false\nrequires_stage:"
    ) in edited
    assert [(i.key, i.kind) for i in inserted] == [
        ("requires_stage", "list-lines"),
        ("consumes", "list-lines"),
    ]
    restored = edited
    for insertion in inserted:
        restored = remove_lines(
            restored, insertion.key, insertion.text.splitlines(), "pr-integration.md"
        )
    assert restored == PR_STAGE


def test_a_pr_integration_stage_without_a_requires_stage_list_is_refused_naming_it():
    flow = PR_STAGE.replace("requires_stage:\n  - code-generation\n", "requires_stage: [a]\n")

    with pytest.raises(InvalidInput, match="pr-integration.md: no block list 'requires_stage:'"):
        pr_integration_edit(flow, "pr-integration.md")


def test_a_stage_the_existing_graph_names_keeps_that_name_as_upstreams_compile_keeps_it(
    tmp_path,
):
    existing = tmp_path / "stage-graph.json"
    existing.write_text('[{"slug": "pr-integration", "number": "3.8", "name": "Pr Integration"}]')
    compiled = (
        '[\n  {\n    "slug": "pr-integration",\n    "number": "3.9",\n'
        '    "name": "PR Integration"\n  },\n  {\n    "slug": "code-review",\n'
        '    "number": "3.6",\n    "name": "Code Review"\n  }\n]\n'
    )

    kept = kept_names(compiled, existing)

    assert kept == compiled.replace('"PR Integration"', '"Pr Integration"')
    assert kept_names(compiled, tmp_path / "none.json") == compiled
