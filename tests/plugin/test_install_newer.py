"""Lowering for the newer engines' contracts, on the plugin's own texts (no engine needed):
the engine-written manifest replaces exactly the step that asked for one, and a harness
without an engine's tools is lowered as today."""

from __future__ import annotations

import pytest

from aidlc_review.errors import InvalidInput
from aidlc_review.harness.layout import plugin_root
from aidlc_review.install.contributions import load_contributions
from aidlc_review.install.newer import (
    REVIEW_SLOT_STEP,
    Lowering,
    manifest_step,
    with_review_slot_step,
)


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
