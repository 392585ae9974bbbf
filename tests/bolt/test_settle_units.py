"""``bolt settle`` finds the intent's units where the engine keeps their records:
``construction/<unit>/`` (2.5, 2.6) or ``construction/units/<unit>/`` (upstream's newer
layout, docs/upstream-newer.md); a stage-level folder is named after its stage."""

from __future__ import annotations

from pathlib import Path

import pytest

from aidlc_review.bolt.settle import CONSTRUCTION_STAGES, intent_units


@pytest.fixture
def harness(tmp_path: Path) -> Path:
    stages = tmp_path / ".claude" / CONSTRUCTION_STAGES
    stages.mkdir(parents=True)
    for stage in ("code-generation", "code-review"):
        (stages / f"{stage}.md").write_text("---\n---\n")
    return tmp_path / ".claude"


@pytest.mark.parametrize("layout", [(), ("units",)])
def test_the_units_with_records_are_settled_in_either_layout(tmp_path, harness, layout):
    record = tmp_path / "record"
    for unit in ("billing", "orders"):
        (record / "construction" / Path(*layout) / unit / "code-review").mkdir(parents=True)
    (record / "construction" / "code-review" / "x").mkdir(parents=True)  # stage level: no unit

    assert intent_units(record, harness) == ["billing", "orders"]
