"""The contract changes upstream made after 2.6.18, each carried by a copy of an export whose
files are edited the way upstream's newer ``core/`` spells the change (DESIGN §8): install
detects each from the engine's schema and tools, not its version, and lowers for it; upstream's
own compile and doctor judge the result. A change install cannot lower is refused, naming it,
with every byte of the project left as it was."""

from __future__ import annotations

import json
import re

import pytest
from tests.upstream.engine import UpstreamProject

from aidlc_review.cli.main import main
from aidlc_review.install.newer import Lowering
from aidlc_review.review.inputs.paths import RecordPaths
from aidlc_review.review.inputs.source_manifest import read_source_manifest
from aidlc_review.upstream.features import EngineFeatures
from aidlc_review.upstream.tools import Engine, find_bun

pytestmark = pytest.mark.engine  # runs upstream's engine (tests/engine_export.py)

SCHEMA = "tools/aidlc-stage-schema.ts"
REVIEW_STAGE = "aidlc-common/stages/construction/code-review.md"
GENERATION = "aidlc-common/stages/construction/code-generation.md"


def _edit(project: UpstreamProject, display: str, old: str, new: str) -> None:
    path = project.harness / display
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{display}: {old!r} is not there to edit"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _append(project: UpstreamProject, display: str, line: str) -> None:
    path = project.harness / display
    path.write_text(path.read_text(encoding="utf-8") + line + "\n", encoding="utf-8")


def _commit(project: UpstreamProject, message: str) -> None:
    project.git("add", "-A")
    project.git("commit", "-q", "-m", message)


def _install(project: UpstreamProject, *flags: str) -> int:
    return main(["install", "--harness", str(project.harness), *flags])


def _upstream_accepts(project: UpstreamProject) -> None:
    assert project.tool("graph", "compile", "--check").code == 0
    assert re.fullmatch(r"\d+ passed, 0 failed", project.doctor_summary())


def _review_stage(project: UpstreamProject) -> str:
    return (project.harness / REVIEW_STAGE).read_text(encoding="utf-8")


def test_the_engines_that_run_here_carry_none_of_the_newer_changes_install_lowers(project):
    features = EngineFeatures.read(project.harness)

    assert not features.review_slot
    assert not features.engine_source_manifest
    assert not features.units_record_dir
    assert features.unit_record_dir("u1") == "construction/u1"
    assert not Lowering.read(project.harness).unit_records


def test_a_schema_that_knows_review_artifact_gets_code_review_declared_as_it(project):
    _edit(project, SCHEMA, '"reviewer", ', '"reviewer", "review_artifact", ')
    _commit(project, "the schema of 2.7: review_artifact")

    assert _install(project) == 0

    assert "\nreview_artifact: code-review\n" in _review_stage(project)
    _upstream_accepts(project)


def test_a_logger_handing_out_review_slots_gets_the_report_written_before_the_request(
    project,
):
    _append(project, "tools/aidlc-log.ts", "export let reviewFile: string | null = null;")
    _commit(project, "the logger of 2.8: one review record at a slot it hands out")

    assert _install(project) == 0

    stage = _review_stage(project)
    step = stage[stage.index("## Engine review record") :]
    assert step.index("code-review-findings.json") < step.index("requests the engine's review")
    assert "Nothing writes `code-review.md` after the request" in " ".join(step.split())
    assert "writes the review at that slot" in " ".join(step.split())
    _upstream_accepts(project)


def test_an_engine_checking_source_manifests_itself_is_not_asked_for_a_second_one(project):
    _append(
        project,
        "tools/aidlc-log.ts",
        "export const readUnitSourceManifest = (pd: string, stage: string, unit: string) => null;",
    )
    _commit(project, "the engine of #813: it validates each unit's source manifest")

    assert _install(project) == 0

    generation = (project.harness / GENERATION).read_text(encoding="utf-8")
    assert "do not write a second one" in " ".join(generation.split())
    assert "write `source-manifest.json`" not in generation
    assert '{"stage": "code-generation"' not in generation
    _upstream_accepts(project)
    assert main(["uninstall", "--harness", str(project.harness)]) == 0
    assert project.status() == ""


def test_a_logger_owning_budgets_where_stages_carry_none_gets_no_budget_written(project):
    _edit(project, SCHEMA, '"reviewer_max_iterations", ', "")
    for stage in (project.harness / "aidlc-common/stages").rglob("*.md"):
        text = stage.read_text(encoding="utf-8")
        stage.write_text(re.sub(r"(?m)^reviewer_max_iterations: .*\n", "", text))
    if not EngineFeatures.read(project.harness).logger_budget:  # 2.5: the logger counts none
        _append(project, "tools/aidlc-log.ts", 'export const BUDGET_OF = "review_cap";')
    assert project.tool("graph", "compile").code == 0
    _commit(project, "the engine of 2.9: the logger owns every review budget")

    assert _install(project) == 0

    assert "reviewer_max_iterations" not in _review_stage(project)
    assert project.tool("graph", "compile", "--check").code == 0


UNITS_STEP = (  # upstream's newer code-generation stage, Step 1 (docs/upstream-newer.md)
    "\nFor every later path in this stage, set `<code-generation-record>` from the\n"
    "directive exactly once:\n\n- `directive.unit` present:\n"
    "  `<record>/construction/units/<directive.unit>/code-generation/`\n"
)


def test_records_under_construction_units_are_named_there_in_every_installed_text(project):
    _append(project, GENERATION, UNITS_STEP)
    _commit(project, "the engine of 2.11: unit records under construction/units/<unit>/")

    assert _install(project) == 0

    review = _review_stage(project)
    assert "`<record>/construction/units/<unit>/code-review/` holds" in " ".join(review.split())
    assert "construction/<unit>/" not in review
    for contributed in (GENERATION, "aidlc-common/stages/construction/build-and-test.md"):
        text = (project.harness / contributed).read_text(encoding="utf-8")
        assert "construction/<unit>/" not in text
    assert "construction/units/<unit>/code-review/" in " ".join(
        (project.harness / "aidlc-common/stages/construction/build-and-test.md")
        .read_text(encoding="utf-8")
        .split()
    )
    _upstream_accepts(project)
    assert main(["uninstall", "--harness", str(project.harness)]) == 0
    assert project.status() == ""


def test_a_schema_requiring_a_key_install_cannot_fill_is_refused_even_when_forced(project, capsys):
    _edit(
        project, SCHEMA, '"outputs",\n] as const;', '"outputs",\n  "review_contract",\n] as const;'
    )
    _commit(project, "an engine with a stage key this plugin has never seen")

    assert _install(project, "--force") == 1

    err = capsys.readouterr().err
    assert "review_contract" in err
    assert SCHEMA in err
    assert project.status() == ""


def test_a_schema_coupling_reviewer_to_a_key_install_does_not_know_is_refused(project, capsys):
    anchor = '  checkPositiveInteger(o, "reviewer_max_iterations", errors);\n'
    rule = (
        '  if ("reviewer" in o && !("review_owner" in o))\n'
        '    errors.push("reviewer requires review_owner");\n'
    )
    _edit(project, SCHEMA, anchor, anchor + rule)
    _commit(project, "an engine whose reviewer needs a key this plugin has never seen")

    assert _install(project) == 1

    assert "review_owner" in capsys.readouterr().err
    assert project.status() == ""


def test_an_engine_checking_manifests_has_its_manifest_read_by_its_schemas_fields(project):
    _append(project, "tools/aidlc-log.ts", "export const manifest = readUnitSourceManifest;")
    (project.root / "src").mkdir()
    (project.root / "src" / "a.py").write_text("A = 1\n")
    path = project.root / "aidlc-docs/construction/units/u1/code-generation/source-manifest.json"
    path.parent.mkdir(parents=True)
    document = {  # one field no schema documents today (inferred for a later engine)
        "stage": "code-generation",
        "unit": "u1",
        "version": 1,
        "writes": [{"path": "src/a.py"}],
        "recorded_by": "aidlc-log.ts",
    }
    path.write_text(json.dumps(document))

    manifest = read_source_manifest(path, project.root)

    assert [claim.path for claim in manifest.claims] == ["src/a.py"]
    assert RecordPaths.resolve(project.root, "u1", record=project.root / "aidlc-docs").manifest == (
        path.resolve()
    )


PR_STAGE = "aidlc-common/stages/construction/pr-integration.md"
# upstream's newer stage (awslabs/aidlc-workflows core/aidlc-common/stages/construction/
# pr-integration.md at 2cbd7ced, docs/upstream-newer.md): its frontmatter as upstream wrote it,
# and of its body the step that builds the PR's evidence dossier from the resolved consumes.
# 2.6.18 accepts all of it (its schema knows for_each and required_sections, it has both
# sensors, the agent and every artifact), so nothing is adapted there; its graph numbers the stage
# itself (after ci-pipeline): the edges, not the number, order it after a unit's code.
PR_CORE_CONSUMES = (
    "requirements", "unit-of-work", "functional-spec", "performance-design", "security-design",
    "infrastructure-specification", "code-generation-plan", "unit-test-instructions",
    "code-summary",
)  # fmt: skip
PR_REQUIRED = ("code-generation-plan", "unit-test-instructions", "code-summary")


def _pr_integration(consumes: tuple[str, ...]) -> str:
    return (
        "---\nslug: pr-integration\nphase: construction\nexecution: CONDITIONAL\n"
        "condition: Executes only when the affirmed integration mode resolves to PR integration "
        "for this intent; protected-branch reality overrides a configured direct path.\n"
        "lead_agent: aidlc-pipeline-deploy-agent\nsupport_agents: []\nmode: inline\n"
        "for_each: unit-of-work\nproduces:\n  - pr-record\nconsumes:\n"
        + "".join(
            f"  - artifact: {a}\n    required: {'false' if a not in PR_REQUIRED else 'true'}\n"
            for a in consumes
        )
        + "requires_stage:\n  - code-generation\nsensors:\n  - required-sections\n"
        "  - upstream-coverage\nrequired_sections:\n  - PR Summary\n  - Publication Plan\n"
        "  - Evidence Dossier\n  - Integration Status\nscopes: []\n"
        "inputs: Affirmed integration practices, repository policy detection, and every "
        "resolved artifact in this stage's consumes list\n"
        "outputs: pr-record.md under this stage's per-unit record dir, plus tool-owned PR audit "
        "and lifecycle receipts\n---\n\n# PR Integration\n\n## Steps\n\n"
        "### Step 2: Compose the PR Record\n\n"
        "Build the collapsed evidence dossier by enumerating this stage's resolved\n"
        "`directive.consumes` in order. The core consumes above stay first; any\n"
        "plugin-added consumes follow automatically.\n"
    )


def _add_pr_integration(project: UpstreamProject) -> tuple[str, ...]:
    """Upstream's stage in the copy, generated and committed as its own tools leave a stage
    it ships; its core consumes as the copy carries them. Adapted only where this engine's
    doctor cannot accept it: an optional design artifact no stage of this engine produces
    (2.5.5 has no ``functional-spec`` or ``infrastructure-specification``) is left out."""
    graph = project.harness / "tools/data/stage-graph.json"
    produced = {a for node in json.loads(graph.read_text("utf-8")) for a in node["produces"]}
    kept = tuple(a for a in PR_CORE_CONSUMES if a in produced or a in PR_REQUIRED)
    (project.harness / PR_STAGE).write_text(_pr_integration(kept), encoding="utf-8")
    bun = find_bun()
    assert bun is not None
    Engine.of(project.harness).regenerate(bun)
    _commit(project, "the engine of 3.6: a per-unit pr-integration stage")
    return kept


def _graph_node(project: UpstreamProject, slug: str) -> dict[str, object]:
    graph = json.loads((project.harness / "tools/data/stage-graph.json").read_text("utf-8"))
    return next(node for node in graph if node["slug"] == slug)


def _order(node: dict[str, object]) -> tuple[int, ...]:
    return tuple(int(part) for part in str(node["number"]).split("."))


def test_a_pr_integration_stage_requires_the_code_review_and_carries_its_report(project):
    core = _add_pr_integration(project)

    assert _install(project) == 0

    node = _graph_node(project, "pr-integration")
    assert node["requires_stage"] == ["code-generation", "code-review"]
    consumed = [entry["artifact"] for entry in node["consumes"]]
    assert consumed == [*core, "code-review"]  # the core ones stay first
    assert _order(_graph_node(project, "code-review")) < _order(node)
    _upstream_accepts(project)
    assert main(["uninstall", "--harness", str(project.harness)]) == 0
    assert project.status() == ""


def test_an_engine_without_pr_integration_has_no_stage_edited_for_it(project):
    assert not EngineFeatures.read(project.harness).pr_integration

    assert _install(project) == 0

    assert not (project.harness / PR_STAGE).exists()
