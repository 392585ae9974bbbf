"""Code review in a scope without units (bugfix), through upstream's own engine: one
stage-level review of the source code generation claims in a manifest without ``unit``.

Upstream runs a per-unit stage once where a scope has no unit set: 2.5.5 resolves its record
paths under the literal ``construction/{unit-name}/<stage>/``, 2.6.18 under
``construction/<stage>/``. Code generation writes its manifest beside its ``produces`` and the
review writes its record where upstream looks for code-review's, so upstream's gate, the
plugin's approval hook and ``aidlc-review review`` without ``--unit`` agree on both engines.
Every engine call here is a Bash command through the hooks ``settings.json`` registers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.upstream.claude_code import ClaudeCodeProject, Refused
from tests.upstream.conductor import Conductor, Directive, WalkStopped
from tests.upstream.test_gated_walk import CLEAN, UNUSED_IMPORT

pytestmark = pytest.mark.engine  # runs upstream's engine (tests/engine_export.py)

SOURCE = "src/fix.py"


class BugfixWalk:
    def __init__(self, project: ClaudeCodeProject, source: str):
        self.project = project
        self.source = source
        self.conductor = Conductor(project, [])
        self.conductor.on_stage = {"code-generation": self.generate, "code-review": self.review}
        self.review_exits: list[int] = []
        self.generated: list[Directive] = []
        self.reviewed: list[Directive] = []

    def generate(self, directive: Directive) -> None:
        self.generated.append(directive)
        self.conductor.write_artifacts(directive)
        self.conductor.record_review(directive, "READY")  # code-generation's own reviewer
        (self.project.root / "src").mkdir(exist_ok=True)
        (self.project.root / SOURCE).write_text(self.source)
        manifest = {"stage": "code-generation", "version": 1, "writes": [{"path": SOURCE}]}
        record = self.project.root / Path(directive["produces"][0]).parent
        (record / "source-manifest.json").write_text(json.dumps(manifest))

    def review(self, directive: Directive) -> None:
        self.reviewed.append(directive)
        ran = self.project.bash("aidlc-review review run --workspace .")
        assert ran.code in (0, 1), ran.stderr
        self.review_exits.append(ran.code)
        if ran.code == 0:
            self.project.bash_ok("aidlc-review review gate --workspace . --approve")


@pytest.fixture
def bugfix_project(installed) -> ClaudeCodeProject:
    (installed.root / "pyproject.toml").write_text("[tool.ruff]\nline-length = 100\n")
    installed.git("add", "-A")
    installed.git("commit", "-q", "-m", "the project's ruff settings")
    return ClaudeCodeProject.of(installed)


def test_code_review_runs_in_the_unit_less_scopes_the_feature_request_names(installed):
    grid = json.loads((installed.harness / "tools/data/scope-grid.json").read_text())
    for scope in ("bugfix", "refactor", "security-patch"):
        assert grid[scope]["stages"]["code-review"] == "EXECUTE", scope
    for scope in {"poc", "express"} & set(grid):  # 2.5.5 has no express
        assert grid[scope]["stages"]["code-review"] == "SKIP", scope


def test_a_bugfix_walk_refuses_a_blocking_defect_at_the_gate_and_approves_it_repaired(
    bugfix_project,
):
    walk = BugfixWalk(bugfix_project, UNUSED_IMPORT)
    walk.conductor.birth("bugfix")

    with pytest.raises((WalkStopped, Refused), match="code-review"):
        walk.conductor.walk_until("build-and-test")

    assert walk.review_exits == [1]  # NOT-READY: the unused import blocks
    [generated] = walk.generated
    [reviewed] = walk.reviewed
    assert generated.get("unit") is None and reviewed.get("unit") is None  # no unit set
    [report] = reviewed["produces"]
    stage_dir = bugfix_project.root / Path(report).parent
    findings = json.loads((stage_dir / "code-review-findings.json").read_text())
    assert findings["verdict"] == "NOT-READY"
    assert "unit" not in findings or findings["unit"] is None
    assert stage_dir.parent == (bugfix_project.root / generated["produces"][0]).parent.parent

    # the human requests changes (the stage's gate step): a new attempt for the plugin and
    # for upstream, whose budget in bugfix is one advisory pass per attempt on 2.6.18
    bugfix_project.bash_ok("aidlc-review review gate --workspace . --request-changes")
    walk.conductor.press_enter("Request Changes")
    walk.conductor.report("code-review", "--result", "rejected", "--user-input", "Repair it")
    (bugfix_project.root / SOURCE).write_text(CLEAN)  # the developer's repair
    walk.review(reviewed)  # re-reviewed in the new attempt: READY, then its gate approves
    walk.conductor.report("code-review", "--result", "revised")  # SKILL.md's gate loop
    walk.conductor.press_enter()
    walk.conductor.report("code-review", "--result", "approved", "--user-input", "Approve")
    reached = walk.conductor.walk_until("build-and-test")

    assert walk.review_exits == [1, 0]
    assert [d.get("unit") for d in walk.reviewed] == [None, None]
    assert reached["stage"] == "build-and-test"
    repaired = json.loads((stage_dir / "code-review-findings.json").read_text())
    assert repaired["verdict"] == "READY"
    assert (stage_dir / "code-review-receipt.json").is_file()
