"""The project's own harness compiles to the committed golden files.

Regenerate deliberately, after reviewing the change, with:

    AIDLC_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/compiler/test_golden.py

and commit the updated files under tests/golden/project/.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from aidlc_review.compile.build import compile_harness
from aidlc_review.harness.layout import PROJECT_ROOT, HarnessLayout

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "project"
OUTPUTS = ("stage-graph.json", "scope-grid.json", "scope-plans.json", "review-plan.json")


@pytest.mark.parametrize("name", OUTPUTS)
def test_project_harness_output_matches_golden(name):
    compiled = compile_harness(HarnessLayout.at(None), ".claude", strict=True)
    if os.environ.get("AIDLC_UPDATE_GOLDEN"):
        GOLDEN.mkdir(parents=True, exist_ok=True)
        (GOLDEN / name).write_text(compiled.outputs[name])
    assert compiled.outputs[name] == (GOLDEN / name).read_text(), (
        f"{name} differs from tests/golden/project/{name}; see this file's docstring to regenerate"
    )


def test_committed_tools_data_of_the_project_is_up_to_date(capsys):
    assert main(["compile", "--check", "--strict"]) == 0, capsys.readouterr().out


def test_project_harness_is_strictly_valid():
    compiled = compile_harness(HarnessLayout.at(PROJECT_ROOT), ".claude", strict=True)
    assert compiled.warnings == []
    assert set(compiled.outputs) == set(OUTPUTS)


def test_the_committed_review_plan_holds_against_its_schema():
    import json

    import jsonschema

    from aidlc_review.review.record.schemas import PLAN_SCHEMA, load_schema

    plan = json.loads((PROJECT_ROOT / "tools/data/review-plan.json").read_text())
    jsonschema.validate(plan, load_schema(PLAN_SCHEMA))
    assert list(plan["stages"]) == ["code-review"]
