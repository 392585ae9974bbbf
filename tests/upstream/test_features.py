"""What an engine offers is read from its own tools: the verb that starts an intent and
whether its graph compiles gate deferral (no table of versions)."""

from __future__ import annotations

from pathlib import Path

from aidlc_review.harness.engine import read_dialect
from aidlc_review.upstream.features import EngineFeatures
from aidlc_review.upstream.version import engine_version


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


# The shapes below are upstream's own (awslabs/aidlc-workflows core/, docs/upstream-newer.md).
SLOT_LOGGER = (
    "    let requestId: string | null = null;\n    let reviewFile: string | null = null;\n"
)
MANIFEST_LOGGER = (
    "    const manifest = readUnitSourceManifest(\n      pd,\n      flags.stage as string,\n"
)
UNITS_STAGE = (
    "- `directive.unit` present:\n"
    "  `<record>/construction/units/<directive.unit>/code-generation/`\n"
)


def test_a_logger_that_hands_out_a_review_file_is_read_as_the_review_slot_contract(tmp_path):
    harness = _engine(tmp_path, "")
    _tool(harness, "aidlc-log.ts", SLOT_LOGGER)

    assert EngineFeatures.read(harness).review_slot


def test_a_logger_naming_only_the_old_review_folder_hands_out_no_slot(tmp_path):
    harness = _engine(tmp_path, "")
    _tool(harness, "aidlc-log.ts", 'const LEGACY_REVIEW_RECORDS_DIR = ".aidlc-reviews";\n')

    assert not EngineFeatures.read(harness).review_slot


def test_a_logger_that_validates_the_unit_source_manifest_is_read_as_the_engine_checking_it(
    tmp_path,
):
    harness = _engine(tmp_path, "")
    _tool(harness, "aidlc-log.ts", MANIFEST_LOGGER)

    assert EngineFeatures.read(harness).engine_source_manifest


def test_an_engine_whose_state_tool_names_the_source_manifest_checks_it(tmp_path):
    harness = _engine(tmp_path, "")
    _tool(harness, "aidlc-state.ts", 'const MANIFEST = "source-manifest.json";\n')

    assert EngineFeatures.read(harness).engine_source_manifest


def test_unit_records_its_code_generation_stage_puts_under_construction_units_are_read_there(
    tmp_path,
):
    harness = _engine(tmp_path, "")
    stage = harness / "aidlc-common" / "stages" / "construction" / "code-generation.md"
    stage.parent.mkdir(parents=True)
    stage.write_text(UNITS_STAGE)

    features = EngineFeatures.read(harness)

    assert features.units_record_dir
    assert features.unit_record_dir("billing") == "construction/units/billing"


def test_unit_records_a_tool_joins_under_construction_units_are_read_there(tmp_path):
    harness = _engine(tmp_path, "")
    _tool(harness, "aidlc-lib.ts", 'return join(record, "construction", "units", unit);\n')

    assert EngineFeatures.read(harness).unit_record_dir("billing") == "construction/units/billing"


def _pr_stage(harness: Path, text: str) -> None:
    stage = harness / "aidlc-common" / "stages" / "construction" / "pr-integration.md"
    stage.parent.mkdir(parents=True)
    stage.write_text(text)


def test_an_engine_shipping_its_pr_integration_stage_has_it(tmp_path):
    harness = _engine(tmp_path, "")
    _pr_stage(harness, "---\nphase: construction\nslug: pr-integration\n---\n\n# PR\n")

    assert EngineFeatures.read(harness).pr_integration


def test_a_pr_integration_file_with_another_slug_or_the_slug_only_in_its_body_is_not_it(
    tmp_path,
):
    harness = _engine(tmp_path, "")
    _pr_stage(harness, "---\nslug: pr-review\n---\n\nslug: pr-integration\n")

    assert not EngineFeatures.read(harness).pr_integration


def test_a_logger_that_computes_the_budget_owns_it(tmp_path):
    harness = _engine(tmp_path, "")
    _tool(harness, "aidlc-log.ts", "budget = node.reviewer_max_iterations ?? 2;\n")

    assert EngineFeatures.read(harness).logger_budget


def test_the_schema_says_which_stage_keys_it_requires_and_what_a_reviewer_needs(tmp_path):
    harness = _engine(tmp_path, "")
    schema = (
        'const REQUIRED_FIELDS = [\n  "slug",\n  "phase",\n] as const;\n'
        "  if (reviewerDeclared && !reviewArtifactDeclared) {\n"
        '    errors.push("reviewer requires review_artifact");\n'
    )
    _tool(harness, "aidlc-stage-schema.ts", schema)

    features = EngineFeatures.read(harness)

    assert features.required_stage_keys == {"slug", "phase"}
    assert features.reviewer_requires == {"review_artifact"}


def test_an_engine_saying_none_of_it_carries_no_newer_contract(tmp_path):
    features = EngineFeatures.read(_engine(tmp_path, ""))

    assert not (features.review_slot or features.engine_source_manifest)
    assert not (features.units_record_dir or features.logger_budget)
    assert not features.pr_integration
    assert features.required_stage_keys is None
    assert features.unit_record_dir("billing") == "construction/billing"


def test_the_engine_version_is_read_where_its_version_tool_declares_it(tmp_path):
    harness = _engine(tmp_path, "")
    _tool(harness, "aidlc-version.ts", '// the version\nexport const AIDLC_VERSION = "2.11.3";\n')

    assert engine_version(harness) == "2.11.3"
    assert read_dialect(harness).engine == "2.11.3"


def test_an_engine_without_a_declared_version_has_none(tmp_path):
    harness = _engine(tmp_path, "")
    _tool(harness, "aidlc-version.ts", "export const VERSION = 3;\n")

    assert engine_version(harness) is None
    assert engine_version(tmp_path / "nowhere") is None
    assert read_dialect(harness).engine == "unknown"
