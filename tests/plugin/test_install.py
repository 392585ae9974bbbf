"""``install``/``uninstall --harness DIR`` on a copy of the upstream harness (no engine tools in
it, so nothing needs bun): what is written, in which shapes, and that it all comes out again.
tests/upstream/ has the same install judged by upstream's own engine."""

from __future__ import annotations

import difflib
import json
import re
import shutil

import pytest

from aidlc_review.cli.main import main
from aidlc_review.harness.frontmatter import read_document
from tests import engine_export
from tests.plugin.trees import copy_project, copy_upstream, snapshot

CONSTRUCTION = "aidlc-common/stages/construction"
# where 2.5.5's data runs code generation, of the scopes the feature request names
REVIEWED_SCOPES = [
    "bugfix", "enterprise", "feature", "mvp", "refactor", "security-patch", "workshop",
]  # fmt: skip
SCHEMA = ".claude/tools/aidlc-stage-schema.ts"


def install(root, *extra: str) -> int:
    return main(["install", "--harness", str(root), *extra])


def changed_lines(before: bytes, after: bytes) -> list[str]:
    diff = difflib.ndiff(before.decode().splitlines(), after.decode().splitlines())
    return [line[2:] for line in diff if line[:1] in "+-"]


def upstream_stage_keys() -> set[str]:
    """REQUIRED_FIELDS and OPTIONAL_FIELDS of upstream's own stage schema."""
    source = (engine_export.require() / SCHEMA).read_text()
    keys: set[str] = set()
    for name in ("REQUIRED_FIELDS", "OPTIONAL_FIELDS"):
        block = re.search(rf"const {name} = \[(.*?)\]", source, re.S)
        assert block, name
        keys |= set(re.findall(r'"([a-z_]+)"', block.group(1)))
    return keys


def test_code_review_lands_between_generation_and_test(tmp_path):
    root = copy_upstream(tmp_path)

    assert install(root) == 0

    nodes = {n["slug"]: n for n in json.loads((root / "tools/data/stage-graph.json").read_text())}
    assert len(nodes) == 33
    numbers = [nodes[s]["number"] for s in ("code-generation", "code-review", "build-and-test")]
    assert numbers == ["3.5", "3.6", "3.7"]
    review = nodes["code-review"]
    assert (review["lead_agent"], review["reviewer"], review["mode"]) == (
        "aidlc-developer-agent", "aidlc-code-reviewer-agent", "inline",
    )  # fmt: skip
    assert review["produces"] == ["code-review"]
    assert review["sensors_applicable"][0]["path"] == ".claude/sensors/aidlc-review-formatter.md"
    assert nodes["code-generation"]["reviewer"] == "aidlc-architecture-reviewer-agent"
    grid = json.loads((root / "tools/data/scope-grid.json").read_text())
    executing = sorted(s for s, row in grid.items() if row["stages"]["code-review"] == "EXECUTE")
    assert executing == REVIEWED_SCOPES
    args = ["compile", "--harness", str(root), "--display-root", ".claude", "--check"]
    assert main(args) == 0  # our compiler agrees with the numbers install pinned


def test_install_adds_code_review_to_the_scopes_without_units_once_at_stage_level(tmp_path):
    root = copy_upstream(tmp_path)

    assert install(root) == 0

    grid = json.loads((root / "tools/data/scope-grid.json").read_text())
    for scope in ("bugfix", "refactor", "security-patch"):
        assert grid[scope]["stages"]["units-generation"] == "SKIP"  # no unit set there
        assert grid[scope]["stages"]["code-generation"] == "EXECUTE"
        assert grid[scope]["stages"]["code-review"] == "EXECUTE"  # one stage-level review
    assert grid["poc"]["stages"]["code-review"] == "SKIP"  # the documented no-review path


@pytest.mark.engine  # reads upstream's stage schema from the export
def test_the_installed_stage_and_sensors_use_only_what_upstream_accepts(tmp_path):
    root = copy_upstream(tmp_path)
    assert install(root) == 0

    stage = read_document(root / CONSTRUCTION / "code-review.md", "code-review.md")
    assert set(stage.data) <= upstream_stage_keys()
    for path in sorted((root / "sensors").glob("aidlc-review-*.md")):
        manifest = read_document(path, path.name).data
        assert manifest["default_severity"] == "advisory"
        assert manifest["command"] == f"bun .claude/tools/aidlc-sensor-{manifest['id']}.ts"
        assert (root / "tools" / f"aidlc-sensor-{manifest['id']}.ts").is_file()
        assert manifest["enforce"]["default_severity"] == "blocking"


def test_the_ledger_keeps_what_upstream_has_no_field_for(tmp_path):
    root = copy_upstream(tmp_path)
    assert install(root) == 0

    ledger = json.loads((root / "tools/data/plugin-aidlc-review.json").read_text())

    assert ledger["stage"]["repair_agent"] == "aidlc-developer-agent"
    assert ledger["stage"]["max_passes"] == {"gated": 2, "autonomous": 3}
    assert ledger["displaced_numbers"] == {"build-and-test": "3.6", "ci-pipeline": "3.7"}
    feature = {s["slug"]: s for s in ledger["plans"]["scopes"]["feature"]["gated"]["stages"]}
    completion = [g for g in feature["code-generation"]["gates"] if g["kind"] == "completion"]
    assert completion[0]["replaced_by"] == "code-review"
    poc = {s["slug"]: s for s in ledger["plans"]["scopes"]["poc"]["gated"]["stages"]}
    assert "code-review" not in poc
    added = {a["path"] for a in ledger["added"]}
    assert f"{CONSTRUCTION}/code-review.md" in added
    assert "tools/aidlc-sensor-review-linter.ts" in added


def test_core_stages_only_gain_delimited_blocks(tmp_path):
    root = copy_upstream(tmp_path)
    before = snapshot(root)
    assert install(root) == 0
    after = snapshot(root)

    codegen = changed_lines(
        before[f"{CONSTRUCTION}/code-generation.md"], after[f"{CONSTRUCTION}/code-generation.md"]
    )
    assert codegen[1].startswith("<!-- plugin:code-review:end-of-steps:100:")
    assert codegen[-1].startswith("<!-- /plugin:code-review:end-of-steps:100:")
    assert all(line.startswith("+") is False for line in codegen)  # additions only (ndiff '+ ')
    build = changed_lines(
        before[f"{CONSTRUCTION}/build-and-test.md"], after[f"{CONSTRUCTION}/build-and-test.md"]
    )
    assert build[:2] == ["  - artifact: code-review", "    required: false"]
    assert build[3].startswith("<!-- plugin:code-review:end-of-steps:100:")
    kept = (
        "agents/aidlc-developer-agent.md",
        "sensors/aidlc-linter.md",
        "sensors/aidlc-type-check.md",
    )
    assert all(after[k] == before[k] for k in kept)


def test_installing_twice_changes_nothing(tmp_path, capsys):
    root = copy_upstream(tmp_path)
    assert install(root) == 0
    first = snapshot(root)
    capsys.readouterr()

    assert install(root) == 0

    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"nothing to change in {root}\n" in captured.err
    assert snapshot(root) == first


def test_uninstall_restores_every_byte(tmp_path):
    root = copy_upstream(tmp_path)
    before = snapshot(root)
    assert install(root) == 0

    assert main(["uninstall", "--harness", str(root)]) == 0

    assert snapshot(root) == before


def test_dry_run_prints_the_diff_and_writes_nothing(tmp_path, capsys):
    root = copy_upstream(tmp_path)
    before = snapshot(root)

    assert install(root, "--dry-run") == 0

    captured = capsys.readouterr()
    assert snapshot(root) == before
    assert "+++ b/aidlc-common/stages/construction/code-review.md\n" in captured.out
    assert "+<!-- plugin:code-review:end-of-steps:100:" in captured.out
    assert re.search(r"dry run: \d+ file\(s\) would change; nothing written\n", captured.err)


def test_unrecognised_harness_is_refused_and_untouched(tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert install(empty) == 2
    assert capsys.readouterr().err == (
        f"{empty}: not an AI-DLC harness (no aidlc-common/stages/ or stages/ folder)\n"
    )
    project = copy_project(tmp_path)
    before = snapshot(project)
    assert install(project) == 2
    assert capsys.readouterr().err == (
        f"{project}: not an installed AI-DLC harness "
        "(expected aidlc-common/stages/construction/code-generation.md)\n"
    )
    assert snapshot(project) == before


def test_a_stage_to_edit_that_is_malformed_is_refused_with_its_breadcrumb(tmp_path, capsys):
    root = copy_upstream(tmp_path)
    stage = root / CONSTRUCTION / "build-and-test.md"
    text = stage.read_text()
    stage.write_text(
        text[: text.index("consumes:")] + "consumes:\n" + text[text.index("requires_stage:") :]
    )
    before = snapshot(root)
    assert install(root) == 2
    assert capsys.readouterr().err == (
        f"{CONSTRUCTION}/build-and-test.md:18: consumes: must be a list, got null\n"
    )
    assert snapshot(root) == before


def test_unit_major_construction_is_refused(tmp_path, capsys):
    root = copy_upstream(tmp_path)
    state = tmp_path / "aidlc/spaces/default/intents/261201-x/aidlc-state.md"
    state.parent.mkdir(parents=True)
    state.write_text("## Runtime State\n- **Construction Iteration**: unit-major\n")
    before = snapshot(root)

    assert install(root) == 2

    assert capsys.readouterr().err.startswith(f"{state}: Construction Iteration is unit-major;")
    assert snapshot(root) == before


def test_reinstalling_keeps_a_leads_scope_choice(tmp_path, capsys):
    root = copy_upstream(tmp_path)
    assert install(root) == 0
    assert main(["scope", "remove", "code-review", "workshop", "--harness", str(root)]) == 0
    before = snapshot(root)
    capsys.readouterr()

    assert install(root) == 0

    assert snapshot(root) == before
    grid = json.loads((root / "tools/data/scope-grid.json").read_text())
    assert grid["workshop"]["stages"]["code-review"] == "SKIP"


def test_without_bun_install_writes_the_sources_and_says_what_to_run(tmp_path, monkeypatch, capsys):
    """An engine whose tools are there but bun is not. Without an export, the engine's data
    with the two files install looks for in its place (ours: nothing runs them)."""
    project = tmp_path / "project"
    shutil.copytree(engine_export.data(), project)
    tools = project / ".claude/tools"
    if engine_export.export() is None:
        (tools / "aidlc-version.ts").write_text('export const AIDLC_VERSION = "2.5.5";\n')
        (tools / "aidlc-graph.ts").write_text("// not run: bun is not on PATH\n")
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    monkeypatch.delenv("AIDLC_BUN", raising=False)

    assert install(project / ".claude") == 1

    err = capsys.readouterr().err
    assert "bun was not found" in err
    for command in (
        "bun .claude/tools/aidlc-graph.ts compile",
        "bun .claude/tools/aidlc-utility.ts stage-table",
        "bun .claude/tools/aidlc-utility.ts scope-table",
        "bun .claude/tools/aidlc-runner-gen.ts write",
    ):
        assert f"  {command}\n" in err
    assert (project / ".claude" / CONSTRUCTION / "code-review.md").is_file()
