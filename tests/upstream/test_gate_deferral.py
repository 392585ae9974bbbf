"""The proposed upstream change (docs/upstream-gate-deferral.patch), run for real.

A stage key ``completion_gate: deferred-to <slug>`` lets code-generation hand its
completion gate to code-review wherever code-review still runs after it. The patch is
applied with ``git apply --unidiff-zero`` to a fresh copy of upstream's engine (2.5.5, or
2.6.18 with ``upstream-gate-deferral-2.6.18.patch``, the same change at 2.6.18's lines), this
plugin is installed into it, and a ``feature`` intent with two units is walked to
build-and-test twice, in two copies of that project at once: one as installed,
one with the key on code-generation. The key changes nothing before code-generation,
so both copies go on from one walk up to the first code-generation directive (walked
once per test run); the key is set, and the graph compiled, before that directive runs.
"""

from __future__ import annotations

import json
import os
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from tests import engine_export
from tests.upstream.conductor import Conductor, Directive
from tests.upstream.engine import UpstreamProject, build_once, bun_dir

from aidlc_review.cli.main import main
from aidlc_review.harness.layout import PROJECT_ROOT

pytestmark = pytest.mark.engine  # runs upstream's engine (tests/engine_export.py)

# the proposal, one patch per engine (no context lines: none of upstream's code is kept here)
PATCHES = {
    (2, 5): PROJECT_ROOT / "docs" / "upstream-gate-deferral.patch",
    (2, 6): PROJECT_ROOT / "docs" / "upstream-gate-deferral-2.6.18.patch",
}
CODE_GENERATION = ".claude/aidlc-common/stages/construction/code-generation.md"
KEY = "completion_gate: deferred-to code-review"
UNITS = ["greeter", "formatter"]


@pytest.fixture(scope="session")
def patched_once(shared_tmp: Path) -> UpstreamProject:
    """A fresh upstream project with the patch for its engine applied, per test run. A patch
    has no context lines, so each is made against one engine: 2.5.5 and 2.6.18."""
    patch = PATCHES[engine_export.version()[:2]]

    def apply(where: Path) -> None:
        UpstreamProject.fresh(where).git("apply", "--unidiff-zero", str(patch))

    return UpstreamProject(build_once(shared_tmp / "upstream-patched", apply))


def patched_install(patched: UpstreamProject, where: Path) -> UpstreamProject:
    project = patched.copy_to(where)
    assert main(["install", "--harness", str(project.harness)]) == 0
    return project


def defer_code_generation_gate(project: UpstreamProject) -> None:
    stage = project.root / CODE_GENERATION
    text = stage.read_text(encoding="utf-8")
    text, added = re.subn(
        r"^(reviewer_max_iterations: \d+)$", rf"\1\n{KEY}", text, count=1, flags=re.M
    )
    assert added == 1, "code-generation's frontmatter has no reviewer_max_iterations line"
    stage.write_text(text, encoding="utf-8")
    project.ok("graph", "compile")


def assert_engine_green(project: UpstreamProject) -> None:
    project.ok("graph", "compile", "--check")
    assert project.doctor_summary().endswith(" 0 failed"), project.doctor_summary()


@pytest.fixture(scope="session")
def at_code_generation(patched_once: UpstreamProject, shared_tmp: Path) -> Path:
    """The patched project, installed and green, its ``feature`` intent walked until the
    first code-generation directive (not yet run); ``walked.json`` keeps what it saw."""

    def walk(where: Path) -> None:
        project = patched_install(patched_once, where / "project")
        assert_engine_green(project)
        conductor = Conductor(project, UNITS)
        conductor.birth("feature")
        directive = conductor.walk_until("code-generation")
        walked = {"directive": directive, "seen": conductor.seen}
        (where / "walked.json").write_text(json.dumps(walked), encoding="utf-8")

    return build_once(shared_tmp / "upstream-patched-at-code-generation", walk)


def walk_on(project: UpstreamProject, walked: Path) -> tuple[Conductor, list[Directive]]:
    """Go on from the shared walk to build-and-test; return the conductor (what it saw from
    the intent's birth) and every code-generation directive."""
    code_generation: list[Directive] = []
    conductor = Conductor(project, UNITS)
    conductor.seen = [tuple(s) for s in json.loads(walked.read_text(encoding="utf-8"))["seen"]]

    def run_code_generation(directive: Directive) -> None:
        code_generation.append(directive)
        conductor.write_artifacts(directive)
        conductor.record_review(directive, "READY")

    conductor.on_stage["code-generation"] = run_code_generation
    conductor.walk_until("build-and-test")
    return conductor, code_generation


def gates(conductor: Conductor) -> list[str]:
    return [stage for stage, _unit, gate in conductor.seen if gate is True]


def audit_events(project: UpstreamProject, stage: str) -> list[str]:
    """The audit trail's events for one stage, in order."""
    events = []
    for shard in sorted((project.root / "aidlc").glob("spaces/*/intents/*/audit/*.md")):
        for block in shard.read_text(encoding="utf-8").split("\n---\n"):
            if re.search(rf"^\*\*Stage\*\*: {re.escape(stage)}$", block, re.M):
                event = re.search(r"^\*\*Event\*\*: (\S+)$", block, re.M)
                events.append(event.group(1) if event else "")
    return events


@pytest.fixture
def bun_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """install regenerates upstream's compiled data with upstream's own bun."""
    monkeypatch.setenv("PATH", f"{bun_dir()}{os.pathsep}{os.environ.get('PATH', '')}")


def test_the_patch_applies_and_leaves_upstream_unchanged_until_a_stage_uses_the_key(
    patched_once: UpstreamProject, tmp_path: Path, bun_on_path: None
) -> None:
    project = patched_once.copy_to(tmp_path / "plain")
    assert_engine_green(project)
    assert "completion_gate" not in (project.harness / "tools/data/stage-graph.json").read_text()


def test_compile_refuses_a_deferral_to_an_unknown_or_earlier_stage(
    patched_once: UpstreamProject, tmp_path: Path, bun_on_path: None
) -> None:
    project = patched_once.copy_to(tmp_path / "bad")
    stage = project.root / CODE_GENERATION
    original = stage.read_text(encoding="utf-8")
    for value, why in [
        ("deferred-to nowhere", "is not a known stage slug"),
        ("deferred-to functional-design", "is not numbered after it"),
        ("later please", 'must be "deferred-to <stage-slug>"'),
    ]:
        stage.write_text(
            original.replace("mode: subagent\n", f"mode: subagent\ncompletion_gate: {value}\n", 1)
        )
        ran = project.tool("graph", "compile")
        assert ran.code != 0 and why in ran.stderr, (value, ran.stderr)


def test_code_review_presents_the_gate_code_generation_deferred_to_it(
    at_code_generation: Path, tmp_path: Path, bun_on_path: None
) -> None:
    shared = UpstreamProject(at_code_generation / "project")
    as_installed = shared.copy_to(tmp_path / "as-installed")
    deferred = shared.copy_to(tmp_path / "deferred")
    defer_code_generation_gate(deferred)
    assert_engine_green(deferred)
    walked = at_code_generation / "walked.json"
    # Two projects, two engines: the walks share nothing, so they run side by side.
    with ThreadPoolExecutor(max_workers=2) as pool:
        walks = pool.map(walk_on, [as_installed, deferred], [walked, walked])
        (baseline, baseline_code_generation), (conductor, code_generation) = walks

    # Without the key code-generation gates once (on its last unit), then code-review does.
    assert gates(baseline).count("code-generation") == 1
    assert gates(baseline).count("code-review") == 1
    assert all("gate_deferred_to" not in d for d in baseline_code_generation)

    # With it code-generation still runs for every unit but presents no gate:
    # its settling directive says which stage approves it, and code-review gates.
    assert {d.get("unit") for d in code_generation} == set(UNITS)
    assert all(d["gate"] is False for d in code_generation)
    assert [d.get("gate_deferred_to") for d in code_generation][-1] == "code-review"
    assert all("gate_deferred_to" not in d for d in code_generation[:-1])
    assert "code-generation" not in gates(conductor)
    assert gates(conductor).count("code-review") == 1
    assert gates(conductor) == [g for g in gates(baseline) if g != "code-generation"]
    assert len(gates(conductor)) == len(gates(baseline)) - 1

    # The deferral removes the human gate only: code-generation is completed
    # through the engine after its reviewer's receipts, and the one approval of
    # the pair is code-review's.
    generation = audit_events(deferred, "code-generation")
    assert "REVIEW_COMPLETED" in generation and generation[-1] == "STAGE_COMPLETED"
    assert "STAGE_AWAITING_APPROVAL" not in generation and "GATE_APPROVED" not in generation
    assert audit_events(deferred, "code-review")[-2:] == ["GATE_APPROVED", "STAGE_COMPLETED"]
    assert "GATE_APPROVED" in audit_events(as_installed, "code-generation")
    assert_engine_green(deferred)
