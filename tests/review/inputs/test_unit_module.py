"""``review.inputs.unit``: one review run's unit context, loaded and checked before any write."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from aidlc_review.errors import InvalidInput, UsageError, ValidationFailed
from aidlc_review.harness.layout import PROJECT_ROOT
from aidlc_review.review.inputs.paths import RecordPaths
from aidlc_review.review.inputs.unit import MAX_UPSTREAM, Knowledge, UnitContext
from tests.review.workspace import CLEAN, PYPROJECT, UNIT, git, make_workspace, write

PLAN = PROJECT_ROOT / "tools" / "data" / "review-plan.json"
SETTINGS = "\n[tool.aidlc-review]\n"
REVIEWER = "agents/aidlc-code-reviewer-agent.md"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return make_workspace(tmp_path / "ws", {"src/orders/app.py": CLEAN})


@pytest.fixture
def paths(ws: Path) -> RecordPaths:
    return RecordPaths.resolve(ws, UNIT)


def head(ws: Path) -> str:
    done = subprocess.run(["git", "-C", str(ws), "rev-parse", "HEAD"], capture_output=True)
    return done.stdout.decode().strip()


def commit(ws: Path) -> None:
    git(ws, "add", "-A")
    git(ws, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "work")


def settings(ws: Path, table: str) -> None:
    (ws / "pyproject.toml").write_text(PYPROJECT + SETTINGS + table)


def harness_at(root: Path, installed: bool = False, **stage: object) -> Path:
    """A harness holding only a copy of the plugin's compiled plan, its stage edited."""
    (root / ("aidlc-common/stages" if installed else "stages")).mkdir(parents=True)
    plan = json.loads(PLAN.read_text())
    plan["stages"]["code-review"].update(stage)
    write(root / "tools/data/review-plan.json", json.dumps(plan))
    return root


def test_a_unit_loads_from_the_plugin_s_compiled_review_plan(paths: RecordPaths) -> None:
    ctx = UnitContext.load(paths, None, "gated")
    plan = json.loads(PLAN.read_text())["stages"]["code-review"]

    assert (ctx.paths, ctx.harness, ctx.mode) == (paths, PROJECT_ROOT, "gated")
    assert (ctx.stage.slug, ctx.stage.reviews) == ("code-review", "code-generation")
    assert [s.id for s in ctx.sensors] == [s["id"] for s in plan["sensors"]]
    assert ctx.sensors == ctx.stage.sensors
    assert ctx.budget == plan["max_passes"]["gated"]
    assert (ctx.base_revision, ctx.by) == (None, None)


@pytest.mark.parametrize(("mode", "budget"), [("gated", 4), ("autonomous", 7)])
def test_the_pass_budget_is_the_plan_s_passes_for_the_mode(
    paths: RecordPaths, tmp_path: Path, mode: str, budget: int
) -> None:
    harness = harness_at(tmp_path / "h", max_passes={"gated": 4, "autonomous": 7})
    ctx = UnitContext.load(paths, harness, mode)
    assert (ctx.harness, ctx.mode, ctx.budget) == (harness, mode, budget)


@pytest.mark.parametrize("passes", [{"gated": 3}, {"gated": 3, "autonomous": 0}])
def test_a_mode_the_plan_gives_no_passes_still_gets_one(
    paths: RecordPaths, tmp_path: Path, passes: dict[str, int]
) -> None:
    harness = harness_at(tmp_path / "h", max_passes=passes)
    assert UnitContext.load(paths, harness, "autonomous").budget == 1


def test_bolt_s_base_is_kept(paths: RecordPaths, ws: Path) -> None:
    base = head(ws)
    assert UnitContext.load(paths, None, "gated", base_revision=base).base_revision == base


def test_a_mode_that_is_not_a_construction_mode_is_refused(paths: RecordPaths) -> None:
    with pytest.raises(InvalidInput) as caught:
        UnitContext.load(paths, None, "fast")
    assert str(caught.value) == "--mode 'fast': must be one of gated, autonomous"


def test_a_folder_that_is_not_a_harness_is_refused(paths: RecordPaths, tmp_path: Path) -> None:
    (tmp_path / "h").mkdir()
    with pytest.raises(InvalidInput) as caught:
        UnitContext.load(paths, tmp_path / "h", "gated")
    assert str(caught.value) == (
        f"{tmp_path / 'h'}: not an AI-DLC harness (no aidlc-common/stages/ or stages/ folder)"
    )


@pytest.mark.parametrize(
    ("installed", "remedy"),
    [(False, "compile it: aidlc-review compile"), (True, "install again: aidlc-review install")],
    ids=["source-harness", "installed-harness"],
)
def test_a_harness_without_a_review_plan_is_refused_with_how_to_make_one(
    paths: RecordPaths, tmp_path: Path, installed: bool, remedy: str
) -> None:
    harness = harness_at(tmp_path / "h", installed)
    (harness / "tools/data/review-plan.json").unlink()
    with pytest.raises(InvalidInput) as caught:
        UnitContext.load(paths, harness, "gated")
    assert str(caught.value) == (
        f"{harness}/tools/data/review-plan.json: no review plan here; {remedy} --harness {harness}"
    )


def test_a_plan_without_the_code_review_stage_is_refused(
    paths: RecordPaths, tmp_path: Path
) -> None:
    harness = harness_at(tmp_path / "h")
    write(harness / "tools/data/review-plan.json", '{"version": 1, "stages": {}}')
    with pytest.raises(InvalidInput) as caught:
        UnitContext.load(paths, harness, "gated")
    assert str(caught.value) == (
        f"{harness}/tools/data/review-plan.json: the plan has no code-review stage; "
        f"compile it: aidlc-review compile --harness {harness}"
    )


def test_a_broken_install_given_by_harness_is_refused(paths: RecordPaths, tmp_path: Path) -> None:
    harness = harness_at(tmp_path / "h", installed=True)
    plan = json.loads((harness / "tools/data/review-plan.json").read_text())
    plan["installed"] = {"added": [REVIEWER], "inserted": [], "after": "code-generation"}
    write(harness / "tools/data/review-plan.json", json.dumps(plan))
    write(harness / "tools/data/plugin-aidlc-review.json", "{}\n")
    graph = [{"slug": "code-generation", "number": "3.4"}, {"slug": "code-review", "number": "3.5"}]
    write(harness / "tools/data/stage-graph.json", json.dumps(graph))

    with pytest.raises(InvalidInput) as caught:
        UnitContext.load(paths, harness, "gated")
    assert str(caught.value) == (
        f"{harness}: the code-review plugin's install is broken "
        f"(tools/data/plugin-aidlc-review.json records it, but {REVIEWER}: gone), as after an "
        f"upstream upgrade that replaced the harness. Install again: aidlc-review install "
        f"--harness {harness}"
    )

    write(harness / REVIEWER, "---\nname: r\n---\nReview.\n")  # put back: loads again
    assert UnitContext.load(paths, harness, "gated").harness == harness


def test_a_misspelt_setting_is_refused_at_load(paths: RecordPaths, ws: Path) -> None:
    settings(ws, 'test-comand = "pytest"\n')
    line = len((PYPROJECT + SETTINGS).splitlines()) + 1
    with pytest.raises(ValidationFailed) as caught:
        UnitContext.load(paths, None, "gated")
    assert str(caught.value) == (
        f"{ws / 'pyproject.toml'}:{line}: [tool.aidlc-review].test-comand: unknown key "
        "(did you mean 'test-command'?)"
    )


def test_a_base_git_does_not_know_is_refused_at_load(paths: RecordPaths, ws: Path) -> None:
    with pytest.raises(InvalidInput) as caught:
        UnitContext.load(paths, None, "gated", base_revision="no-such-branch")
    assert str(caught.value) == f"base-revision 'no-such-branch': not a commit in {ws}"


def test_a_cache_home_the_sensors_cannot_use_is_refused_at_load(
    paths: RecordPaths, tmp_path: Path, monkeypatch
) -> None:
    cache = tmp_path / "cache-is-a-file"
    cache.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    with pytest.raises(UsageError) as caught:
        UnitContext.load(paths, None, "gated")
    assert str(caught.value) == (
        f"XDG_CACHE_HOME={cache}: cannot hold the cache directory "
        f"{cache}/aidlc-review/sensors: Not a directory; point XDG_CACHE_HOME at a writable "
        "directory"
    )


def test_the_configured_base_is_none_without_bolt_or_settings(paths: RecordPaths) -> None:
    assert UnitContext.load(paths, None, "gated").configured_base() is None


def test_the_configured_base_is_the_settings_base_revision_the_unit_s_own_first(
    paths: RecordPaths, ws: Path
) -> None:
    git(ws, "branch", "trunk")
    git(ws, "branch", "unit-base")
    settings(ws, 'base-revision = "trunk"\n')
    assert UnitContext.load(paths, None, "gated").configured_base() == "trunk"

    unit_table = f'[tool.aidlc-review.units.{UNIT}]\nbase-revision = "unit-base"\n'
    settings(ws, f'base-revision = "trunk"\n\n{unit_table}')
    assert UnitContext.load(paths, None, "gated").configured_base() == "unit-base"
    other = RecordPaths.resolve(ws, "u2-other")
    assert UnitContext.load(other, None, "gated").configured_base() == "trunk"


def test_bolt_s_base_wins_over_the_settings(paths: RecordPaths, ws: Path) -> None:
    base = head(ws)
    settings(ws, 'base-revision = "main"\n')
    ctx = UnitContext.load(paths, None, "gated", base_revision=base)
    assert ctx.configured_base() == base


def test_without_a_table_the_sensor_settings_name_only_the_findings_file(
    paths: RecordPaths,
) -> None:
    ctx = UnitContext.load(paths, None, "gated")
    assert ctx.sensor_settings() == {"findings_path": str(paths.findings)}


def test_the_workspace_table_becomes_the_sensor_settings(paths: RecordPaths, ws: Path) -> None:
    settings(
        ws,
        'test-command = "pytest -q"\ncoverage-threshold = 85\nbase-revision = "main"\n\n'
        '[tool.aidlc-review.severity.rules]\nF401 = "minor"\n',
    )
    assert UnitContext.load(paths, None, "gated").sensor_settings() == {
        "findings_path": str(paths.findings),
        "coverage_command": "pytest -q",
        "coverage_threshold": 85,
        "base_revision": "main",
        "severity": {"test_files": None, "rules": {"F401": "minor"}, "tests": {}, "paths": {}},
    }


def test_a_unit_s_own_table_overrides_the_workspace_s_for_that_unit_only(
    paths: RecordPaths, ws: Path
) -> None:
    settings(
        ws,
        'test-command = ["pytest"]\ncoverage-threshold = 85\n\n'
        f"[tool.aidlc-review.units.{UNIT}]\ncoverage-threshold = 60\n",
    )
    own = UnitContext.load(paths, None, "gated").sensor_settings()
    other = UnitContext.load(RecordPaths.resolve(ws, "u2-other"), None, "gated").sensor_settings()

    assert (own["coverage_command"], own["coverage_threshold"]) == (["pytest"], 60)
    assert (other["coverage_command"], other["coverage_threshold"]) == (["pytest"], 85)


def test_the_team_s_practices_are_passed_on_when_the_record_has_them(
    paths: RecordPaths,
) -> None:
    practices = paths.record / "inception/practices-discovery/team-practices.md"
    write(practices, "# Team practices\n")
    assert UnitContext.load(paths, None, "gated").sensor_settings()["team_practices"] == str(
        practices
    )


def test_at_a_base_with_another_table_the_base_s_table_is_in_force_and_says_why(
    paths: RecordPaths, ws: Path
) -> None:
    settings(ws, "coverage-threshold = 90\n")
    commit(ws)
    base = head(ws)
    settings(ws, 'coverage-threshold = 10\ntest-command = "true"\n')  # the change's own tuning
    ctx = UnitContext.load(paths, None, "gated")

    assert ctx.sensor_settings()["coverage_threshold"] == 10
    assert (
        ctx.sensor_settings(at=base)
        == {
            "findings_path": str(paths.findings),
            "judged_at": base,  # what the sensors honour (suppressions, baselines) stood there
            "in_force": (
                f"pyproject.toml: [tool.aidlc-review] differs from the unit's base {base[:12]}: "
                "the review uses the table at the base (a change does not configure its own "
                "review); the change's own settings take effect once it is on the base"
            ),
            "coverage_threshold": 90,
        }
    )


def test_at_a_base_with_the_same_table_the_settings_are_the_workspace_s(
    paths: RecordPaths, ws: Path
) -> None:
    settings(ws, "coverage-threshold = 90\n")
    commit(ws)
    ctx = UnitContext.load(paths, None, "gated")
    assert ctx.sensor_settings(at=head(ws)) == {**ctx.sensor_settings(), "judged_at": head(ws)}
    assert "in_force" not in ctx.sensor_settings(at=head(ws))


def test_a_bad_table_in_the_workspace_is_refused_even_though_the_base_s_would_judge(
    paths: RecordPaths, ws: Path
) -> None:
    """The base (HEAD) has no table; the change's own bad one is refused when the run's
    project is read, before any base is asked."""
    settings(ws, "coverage-threshold = 101\n")
    line = len((PYPROJECT + SETTINGS).splitlines()) + 1
    with pytest.raises(ValidationFailed) as caught:
        UnitContext.load(paths, None, "gated")
    assert str(caught.value) == (
        f"{ws / 'pyproject.toml'}:{line}: [tool.aidlc-review].coverage-threshold: must be a "
        "number from 0 to 100, got 101"
    )


def test_upstream_lists_the_unit_s_record_and_inception_but_not_its_own_review(
    paths: RecordPaths,
) -> None:
    record = paths.record
    write(record / "inception/requirements/requirements.md", "r\n")
    write(record / f"construction/{UNIT}/functional-design/business-rules.md", "b\n")
    write(paths.findings, "{}\n")
    write(paths.report, "# r\n")
    write(record / "construction/u2-other/code-generation/code-summary.md", "o\n")
    write(paths.engine / "baseline.json", "{}\n")

    assert UnitContext.load(paths, None, "gated").upstream() == [
        f"aidlc-docs/construction/{UNIT}/code-generation/code-summary.md",
        f"aidlc-docs/construction/{UNIT}/code-generation/source-manifest.json",
        f"aidlc-docs/construction/{UNIT}/functional-design/business-rules.md",
        "aidlc-docs/inception/requirements/requirements.md",
    ]


def test_upstream_is_empty_without_a_unit_record_or_inception(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", {"src/app.py": CLEAN})
    paths = RecordPaths.resolve(ws, "u9-none", record=tmp_path / "empty-record")
    assert UnitContext.load(paths, None, "gated").upstream() == []


def test_upstream_is_capped_and_keeps_the_first_in_order(paths: RecordPaths) -> None:
    for n in range(MAX_UPSTREAM + 5):
        write(paths.record / f"inception/notes/n{n:03}.md", "n\n")
    listed = UnitContext.load(paths, None, "gated").upstream()
    assert len(listed) == MAX_UPSTREAM
    assert listed[0] == f"aidlc-docs/construction/{UNIT}/code-generation/code-summary.md"
    assert listed[-1] == f"aidlc-docs/inception/notes/n{MAX_UPSTREAM - 3:03}.md"


def test_the_record_and_the_harness_are_never_application_source(
    paths: RecordPaths, tmp_path: Path
) -> None:
    harness = harness_at(tmp_path / "h")
    assert UnitContext.load(paths, harness, "gated").excluded() == [paths.record, harness]


def test_the_persona_is_the_lead_agent_s_body_without_its_frontmatter(
    paths: RecordPaths, tmp_path: Path
) -> None:
    harness = harness_at(tmp_path / "h")
    write(harness / REVIEWER, "---\nname: reviewer\n---\n\n# Reviewer\n\nLook.\n\n")
    assert UnitContext.load(paths, harness, "gated").persona() == ("# Reviewer\n\nLook.", REVIEWER)


@pytest.mark.parametrize("text", [None, "no frontmatter here\n"], ids=["missing", "unreadable"])
def test_a_persona_that_cannot_be_read_says_where_it_was_looked_for(
    paths: RecordPaths, tmp_path: Path, text: str | None
) -> None:
    harness = harness_at(tmp_path / "h")
    if text is not None:
        write(harness / REVIEWER, text)
    assert UnitContext.load(paths, harness, "gated").persona() == (
        f"(no agent definition found at {REVIEWER})",
        REVIEWER,
    )


def test_knowledge_is_the_lead_agent_s_markdown_notes_in_name_order(
    paths: RecordPaths, tmp_path: Path
) -> None:
    harness = harness_at(tmp_path / "h")
    ctx = UnitContext.load(paths, harness, "gated")
    assert ctx.knowledge() == []

    folder = harness / "knowledge/aidlc-code-reviewer-agent"
    write(folder / "severity.md", "\nSeverities.\n\n")
    write(folder / "checklist.md", "Checklist.\n")
    write(folder / "notes.txt", "not markdown\n")
    write(folder / "nested/deep.md", "not at the top\n")
    write(harness / "knowledge/aidlc-developer-agent/other.md", "someone else's\n")

    assert ctx.knowledge() == [
        Knowledge("knowledge/aidlc-code-reviewer-agent/checklist.md", "Checklist."),
        Knowledge("knowledge/aidlc-code-reviewer-agent/severity.md", "Severities."),
    ]
