"""What an engine offers is read from its own tools: the verb that starts an intent and
whether its graph compiles gate deferral (no table of versions)."""

from __future__ import annotations

from pathlib import Path

from aidlc_review.upstream.features import EngineFeatures


def _engine(root: Path, utility: str, graph: str = "") -> Path:
    tools = root / ".claude" / "tools"
    tools.mkdir(parents=True)
    (tools / "aidlc-utility.ts").write_text(utility)
    (tools / "aidlc-graph.ts").write_text(graph)
    return root / ".claude"


def test_an_engine_that_dispatches_intent_create_is_asked_with_it(tmp_path):
    harness = _engine(tmp_path, 'switch (sub) {\n    case "intent-create":\n')

    features = EngineFeatures.read(harness)

    assert features.birth_args("bugfix", "fix it", "a b") == [
        "intent-create", "--scope", "bugfix", "--arguments", "fix it", "--label", "a b",
    ]  # fmt: skip
    assert not features.gate_deferral


def test_an_engine_that_dispatches_intent_birth_is_asked_with_that(tmp_path):
    harness = _engine(
        tmp_path, '    case "intent-birth":\n', 'const FIELD_ORDER = [\n  "completion_gate",\n'
    )

    features = EngineFeatures.read(harness)

    assert features.birth == "intent-birth"
    assert features.gate_deferral


def test_an_engine_naming_neither_gets_the_newest_verb(tmp_path):
    assert EngineFeatures.read(_engine(tmp_path, "")).birth == "intent-create"


def _tool(harness: Path, name: str, text: str) -> None:
    (harness / "tools" / name).write_text(text)


def test_a_logger_that_hands_out_a_review_file_is_read_as_the_review_slot_contract(tmp_path):
    harness = _engine(tmp_path, "")
    _tool(harness, "aidlc-log.ts", "return { requestId, reviewFile };\n")

    assert EngineFeatures.read(harness).review_slot


def test_an_engine_whose_state_tool_names_the_source_manifest_writes_it_itself(tmp_path):
    harness = _engine(tmp_path, "")
    _tool(harness, "aidlc-state.ts", 'const MANIFEST = "source-manifest.json";\n')

    assert EngineFeatures.read(harness).engine_source_manifest


def test_unit_records_under_construction_units_are_resolved_there(tmp_path):
    harness = _engine(tmp_path, "")
    _tool(harness, "aidlc-lib.ts", 'return join(record, "construction", "units", unit);\n')

    features = EngineFeatures.read(harness)

    assert features.units_record_dir
    assert features.unit_record_dir("billing") == "construction/units/billing"


def test_a_logger_that_computes_the_budget_owns_it(tmp_path):
    harness = _engine(tmp_path, "")
    _tool(harness, "aidlc-log.ts", "budget = node.reviewer_max_iterations ?? 2;\n")

    assert EngineFeatures.read(harness).logger_budget


def test_the_schema_says_which_stage_keys_it_requires_and_what_a_reviewer_needs(tmp_path):
    harness = _engine(tmp_path, "")
    schema = (
        'const REQUIRED_FIELDS = [\n  "slug",\n  "phase",\n] as const;\n'
        'errors.push("reviewer requires review_artifact");\n'
    )
    _tool(harness, "aidlc-stage-schema.ts", schema)

    features = EngineFeatures.read(harness)

    assert features.required_stage_keys == {"slug", "phase"}
    assert features.reviewer_requires == {"review_artifact"}


def test_an_engine_saying_none_of_it_carries_no_newer_contract(tmp_path):
    features = EngineFeatures.read(_engine(tmp_path, ""))

    assert not (features.review_slot or features.engine_source_manifest)
    assert not (features.units_record_dir or features.logger_budget)
    assert features.required_stage_keys is None
    assert features.unit_record_dir("billing") == "construction/billing"
