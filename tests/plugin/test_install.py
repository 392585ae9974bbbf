"""``install --harness DIR`` into a copy of the upstream harness, then compile it."""

from __future__ import annotations

import difflib
import json

from aidlc_review.cli.main import main
from tests.plugin.trees import copy_project, copy_upstream, snapshot

CONSTRUCTION = "aidlc-common/stages/construction"
UPSTREAM_CODEGEN_SCOPES = (
    "enterprise",
    "feature",
    "mvp",
    "bugfix",
    "refactor",
    "security-patch",
    "workshop",
)


def install(root, *extra: str) -> int:
    return main(["install", "--harness", str(root), *extra])


def changed_lines(before: bytes, after: bytes) -> list[str]:
    diff = difflib.ndiff(before.decode().splitlines(), after.decode().splitlines())
    return [line for line in diff if line[:1] in "+-"]


def test_installed_harness_compiles_with_code_review_between_generation_and_test(tmp_path, capsys):
    root = copy_upstream(tmp_path)
    assert install(root) == 0
    assert main(["compile", "--harness", str(root), "--display-root", ".claude"]) == 0
    graph = json.loads((root / "tools/data/stage-graph.json").read_text())
    numbers = {node["slug"]: node["number"] for node in graph}
    assert len(graph) == 33
    assert (numbers["code-generation"], numbers["code-review"], numbers["build-and-test"]) == (
        "3.5", "3.6", "3.7",
    )  # fmt: skip
    nodes = {node["slug"]: node for node in graph}
    assert "reviewer" not in nodes["code-generation"]
    assert nodes["code-generation"]["plan_approval"] == "required"
    assert nodes["functional-design"]["reviewer"] == "aidlc-architecture-reviewer-agent"
    assert (
        nodes["code-review"]["sensors_applicable"][0]["path"]
        == ".claude/sensors/aidlc-formatter.md"
    )
    grid = json.loads((root / "tools/data/scope-grid.json").read_text())
    executing = sorted(s for s, row in grid.items() if row["stages"]["code-review"] == "EXECUTE")
    assert executing == sorted(UPSTREAM_CODEGEN_SCOPES)
    assert grid["poc"]["stages"]["code-generation"] == "EXECUTE"
    plans = json.loads((root / "tools/data/scope-plans.json").read_text())
    poc = {s["slug"]: s for s in plans["scopes"]["poc"]["gated"]["stages"]}
    assert poc["code-generation"]["gates"][1]["status"] == "active"


def test_edits_touch_only_the_edited_keys(tmp_path):
    root = copy_upstream(tmp_path)
    before = snapshot(root)
    assert install(root) == 0
    after = snapshot(root)
    codegen = f"{CONSTRUCTION}/code-generation.md"
    assert changed_lines(before[codegen], after[codegen]) == [
        "- reviewer: aidlc-architecture-reviewer-agent",
        "- reviewer_max_iterations: 2",
        "+ plan_approval: required",
    ]
    build = f"{CONSTRUCTION}/build-and-test.md"
    assert changed_lines(before[build], after[build]) == [
        "+   - artifact: code-review-findings",
        "+     required: false",
        "+   - code-review",
    ]
    changed = sorted(p for p in after if before.get(p) != after[p])
    assert changed == [
        "agents/aidlc-code-reviewer-agent.md",
        f"{CONSTRUCTION}/build-and-test.md",
        f"{CONSTRUCTION}/code-generation.md",
        f"{CONSTRUCTION}/code-review.md",
        "knowledge/aidlc-code-reviewer-agent/answer-format.md",
        "knowledge/aidlc-code-reviewer-agent/checklist.md",
        "knowledge/aidlc-code-reviewer-agent/severity.md",
        "sensors/aidlc-coverage.md",
        "sensors/aidlc-findings-schema.md",
        "sensors/aidlc-formatter.md",
        "sensors/aidlc-secret-scan.md",
    ]


def test_installing_twice_leaves_the_harness_byte_identical(tmp_path, capsys):
    root = copy_upstream(tmp_path)
    assert install(root) == 0
    first = snapshot(root)
    capsys.readouterr()
    assert install(root) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"already installed in {root}; nothing to change\n" in captured.err
    assert snapshot(root) == first


def test_dry_run_prints_the_diff_and_writes_nothing(tmp_path, capsys):
    root = copy_upstream(tmp_path)
    before = snapshot(root)
    assert install(root, "--dry-run") == 0
    captured = capsys.readouterr()
    assert snapshot(root) == before
    assert "--- a/aidlc-common/stages/construction/code-generation.md\n" in captured.out
    assert "-reviewer: aidlc-architecture-reviewer-agent\n" in captured.out
    assert "+++ b/aidlc-common/stages/construction/code-review.md\n" in captured.out
    assert "dry run: 11 file(s) would change; nothing written\n" in captured.err


def test_shared_agents_and_sensors_of_the_harness_are_kept(tmp_path, capsys):
    root = copy_upstream(tmp_path)
    before = snapshot(root)
    assert install(root) == 0
    err = capsys.readouterr().err
    for kept in (
        "agents/aidlc-developer-agent.md",
        "sensors/aidlc-linter.md",
        "sensors/aidlc-type-check.md",
    ):
        assert f"kept the harness's own {kept}\n" in err
        assert (root / kept).read_bytes() == before[kept]


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


def test_a_harness_that_would_not_validate_is_left_untouched(tmp_path, capsys):
    root = copy_upstream(tmp_path)
    codegen = root / CONSTRUCTION / "code-generation.md"
    codegen.write_text(codegen.read_text().replace("workspace_requires: true\n", ""))
    before = snapshot(root)
    assert install(root) == 2
    assert capsys.readouterr().err == (
        f"{CONSTRUCTION}/code-review.md:63: reviews: reviewed stage 'code-generation' "
        "must declare workspace_requires: true\n"
    )
    assert snapshot(root) == before


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


def test_crlf_files_keep_their_line_endings(tmp_path):
    root = copy_upstream(tmp_path)
    build = root / CONSTRUCTION / "build-and-test.md"
    build.write_bytes(build.read_bytes().replace(b"\n", b"\r\n"))
    assert install(root) == 0
    text = build.read_bytes()
    assert b"  - code-review\r\n" in text
    assert b"\n" not in text.replace(b"\r\n", b"")


def test_reinstalling_keeps_a_leads_scope_choice(tmp_path, capsys):
    root = copy_upstream(tmp_path)
    assert install(root) == 0
    assert main(["scope", "remove", "code-review", "bugfix", "--harness", str(root)]) == 0
    before = snapshot(root)
    capsys.readouterr()
    assert install(root) == 0
    assert snapshot(root) == before
    captured = capsys.readouterr()
    assert "nothing to change" in captured.out + captured.err
