"""Every directive the installed code-review can meet has a defined action: the cases where
following upstream's engine and the plugin literally used to stall (or strand an intent)
are refused up front, or met with a message that says how to go on.

- ``Construction Iteration: unit-major`` makes upstream schedule code-review among the
  design stages, before the unit's code exists: refused at install and at scope edits,
  and, when set after install, met at run time with the way back to stage-major order;
- a scope without units is reviewed once at the stage level (``test_bugfix_walk.py``); the
  ones the feature request keeps without review (poc) are refused at ``scope add``, saying why;
- uninstall while an intent is at code-review would leave upstream routing to a stage its
  graph no longer has: refused, naming the intent;
- an upstream upgrade (a fresh ``.claude`` copied over the project) takes the plugin's
  blocks, gate and pins while its files stay, and upstream's doctor sees nothing wrong:
  the plugin's doctor and commands name what is gone and say to install again, which
  puts it right.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from tests import engine_export
from tests.upstream.conductor import Conductor, WalkStopped
from tests.upstream.engine import UpstreamProject

from aidlc_review.cli.main import main

pytestmark = pytest.mark.engine  # runs upstream's engine (tests/engine_export.py)

UNITS = ["u1-greet", "u2-farewell"]
CLEAN = 'def greet(name: str) -> str:\n    return f"hello {name}"\n'
SET_STAGE_MAJOR = "bun .claude/tools/aidlc-state.ts set-construction-iteration stage-major"


def _state(project: UpstreamProject) -> Path:
    return next(project.root.glob("aidlc/spaces/default/intents/*/aidlc-state.md"))


def _settled(project: UpstreamProject) -> None:
    (project.root / "pyproject.toml").write_text("[tool.ruff]\nline-length = 100\n")
    project.git("add", "-A")
    project.git("commit", "-q", "-m", "the plugin and the project's settings")


def _reviewing_conductor(project: UpstreamProject) -> Conductor:
    """A literal conductor: code generation writes each unit's source and manifest; code
    review runs ``aidlc-review review run`` and, when it is refused with a way on, does
    exactly what the refusal says (the backticked commands, in order)."""
    conductor = Conductor(project, UNITS)
    conductor.review_runs = []
    conductor.rereviewed = []

    def generate(directive) -> None:
        conductor.write_artifacts(directive)
        conductor.record_review(directive, "READY")
        unit = directive["unit"]
        path = f"src/{unit.replace('-', '_')}.py"
        (project.root / "src").mkdir(exist_ok=True)
        (project.root / path).write_text(CLEAN)
        manifest = {"stage": "code-generation", "unit": unit, "version": 1}
        manifest["writes"] = [{"path": path}]
        record = project.root / Path(directive["produces"][0]).parent
        (record / "source-manifest.json").write_text(json.dumps(manifest))

    def review(directive) -> None:
        ran = subprocess.run(
            [sys.executable, "-m", "aidlc_review", "review", "run", "--workspace", "."]
            + ["--unit", directive["unit"]],
            cwd=project.root,
            capture_output=True,
            text=True,
            env={**os.environ, **project.env},
        )
        conductor.review_runs.append((directive["unit"], ran.returncode, ran.stderr))
        if ran.returncode == 2:
            for command in re.findall(r"`(bun \.claude/tools/aidlc-[a-z]+\.ts [^`]+)`", ran.stderr):
                tool, *args = command.removeprefix("bun .claude/tools/aidlc-").split()
                project.ok(tool.removesuffix(".ts"), *args)
            return  # the commands ran; the conductor asks for the next directive
        assert ran.returncode in (0, 1), ran.stderr

    conductor.on_stage = {"code-generation": generate, "code-review": review}
    conductor.approve = _following_refusals(conductor)
    return conductor


def _following_refusals(conductor: Conductor) -> Callable[..., None]:
    """Approval as SKILL.md §12a has it: when upstream refuses a design stage for a unit whose
    review it no longer counts, the reviewer is run for those units, then approval again."""
    approve = conductor.approve

    def approve_following(stage: str, produced: list[str] | None = None) -> None:
        try:
            approve(stage, produced)
        except WalkStopped as refused:
            found = _MISSING_REVIEWS.search(str(refused))
            if found is None or stage == "code-review":
                raise
            for unit in found.group(1).split(", "):
                review = {"stage": stage, "unit": unit, "reviewer": found.group(2)}
                conductor.record_review(review, "READY")
                conductor.rereviewed.append((stage, unit))
            conductor.press_enter()
            conductor.report(stage, "--result", "approved", "--user-input", "Approve")

    return approve_following


_MISSING_REVIEWS = re.compile(  # 2.5.5's words, and 2.6.18's (`--iteration <next ordinal>`)
    r"have no fresh recorded review \(([^)]+)\)\..*?--reviewer (\S+) --(?:verdict|iteration)"
)


def test_unit_major_set_after_install_is_met_with_the_way_back(installed):
    _settled(installed)
    conductor = _reviewing_conductor(installed)
    conductor.birth()
    installed.ok("state", "set-construction-iteration", "unit-major")

    reached = conductor.walk_until("build-and-test")

    assert reached["stage"] == "build-and-test"
    walked = [(s, u) for s, u, _ in conductor.seen if s in ("code-generation", "code-review")]
    # upstream's unit-major order, measured: 2.5.5 reaches u1's code-review before its code
    # generation, 2.6.18 after it; the review is refused under unit-major either way
    first = {(2, 5): "code-review", (2, 6): "code-generation"}[engine_export.version()[:2]]
    assert walked[0] == (first, "u1-greet")
    unit, code, err = conductor.review_runs[0]
    assert (unit, code) == ("u1-greet", 2)
    assert f"{_state(installed)}: Construction Iteration is unit-major" in err
    assert f"To go on, run `{SET_STAGE_MAJOR}`" in err
    assert "then `bun .claude/tools/aidlc-orchestrate.ts next` and follow its directive" in err
    # as err says may happen, what u1 went through out of order is reviewed again: 2.5.5
    # counts no review of the design stages u1 went through in unit-major order; 2.6.18 asks
    # for their summaries again instead (recovered above) and no review of u1's code
    # generation, which it ran in that order (measured)
    again = {
        (2, 5): ("nfr-requirements", "nfr-design", "infrastructure-design"),
        (2, 6): ("code-generation",),
    }[engine_export.version()[:2]]
    assert conductor.rereviewed == [(stage, "u1-greet") for stage in again]
    assert [(u, c) for u, c, _ in conductor.review_runs[1:]] == [
        ("u1-greet", 0),
        ("u2-farewell", 0),
        ("u2-farewell", 0),  # again at the gate
    ]


def test_unit_major_is_refused_at_install(project, capsys):
    project.birth()
    project.ok("state", "set-construction-iteration", "unit-major")
    before = project.status()
    capsys.readouterr()

    assert main(["install", "--harness", str(project.harness)]) == 2

    err = capsys.readouterr().err
    state = _state(project)
    assert err == (
        f"{state}: Construction Iteration is unit-major; code-review runs per unit after code "
        "generation, which unit-major iteration would not keep (upstream would schedule it "
        f"among the design stages). Set it back with `{SET_STAGE_MAJOR}` for intent "
        f"default/{state.parent.name} before installing\n"
    )
    assert project.status() == before


def test_unit_major_is_refused_at_scope_add_but_not_at_uninstall(installed, capsys):
    harness = str(installed.harness)
    assert main(["scope", "remove", "code-review", "mvp", "--harness", harness]) == 0
    installed.birth()
    installed.ok("state", "set-construction-iteration", "unit-major")
    before = installed.status()
    capsys.readouterr()

    assert main(["scope", "add", "code-review", "mvp", "--harness", harness]) == 2

    err = capsys.readouterr().err
    assert "Construction Iteration is unit-major" in err
    assert err.endswith(" before changing code-review's scopes\n")
    assert installed.status() == before
    # taking code-review out is a way out of unit-major, not a stall: no intent is at it
    assert main(["uninstall", "--harness", harness]) == 0


def test_scope_add_refuses_a_scope_the_feature_request_keeps_without_review(installed, capsys):
    before = installed.status()
    capsys.readouterr()

    assert main(["scope", "add", "code-review", "poc", "--harness", str(installed.harness)]) == 2

    assert capsys.readouterr().err == (
        "code-review stays out of scope poc: the feature request names code review for "
        "enterprise, feature, mvp, classic, infra, bugfix, refactor, security-patch, workshop "
        "only, and poc is one of its documented no-review paths\n"
    )
    assert installed.status() == before


def test_uninstall_refuses_while_an_intent_is_at_code_review(installed, capsys):
    _settled(installed)
    conductor = _reviewing_conductor(installed)
    conductor.birth()
    directive = conductor.walk_until("code-review")
    before = installed.status()
    capsys.readouterr()

    assert main(["uninstall", "--harness", str(installed.harness)]) == 1

    state = _state(installed)
    assert capsys.readouterr().err == (
        f"refusing to uninstall: intent default/{state.parent.name} has code-review as its "
        f"current stage ({state}). Upstream's `next` would then stop on a stage its graph "
        "no longer has. Finish code-review in that intent first (its gate approved), then "
        "uninstall\n"
    )
    assert installed.status() == before
    assert installed.next() == directive


def _upgrade(project: UpstreamProject) -> None:
    """What an upstream upgrade does to a project: a fresh ``.claude`` copied over it."""
    fresh = engine_export.require() / ".claude"
    shutil.copytree(fresh, project.harness, dirs_exist_ok=True, symlinks=True)


def test_an_upgrade_that_broke_the_install_is_named_and_installing_again_mends_it(
    installed, capsys
):
    harness = installed.harness
    workspace = str(installed.root)
    healthy = installed.doctor_summary()
    _upgrade(installed)
    assert installed.doctor_summary().endswith(" 0 failed")  # upstream sees nothing wrong
    capsys.readouterr()

    assert main(["doctor", "--workspace", workspace]) == 1
    out = capsys.readouterr().out
    broken = (
        f"{harness}: the code-review plugin's install is broken "
        "(tools/data/plugin-aidlc-review.json records it, but "
        "aidlc-common/stages/construction/build-and-test.md: the plugin's consumes entries "
        "are gone; aidlc-common/stages/construction/build-and-test.md: the plugin's step at "
        "end-of-steps is gone; aidlc-common/stages/construction/code-generation.md: the "
        "plugin's step at end-of-steps is gone; settings.json: the plugin's engine gate hook "
        "is gone; tools/data/stage-graph.json: {graph}), as after an upstream upgrade that "
        f"replaced the harness. Install again: aidlc-review install --harness {harness}"
    )
    assert f"  {broken.format(graph='has no code-review stage')}\n" in out
    assert main(["review", "verify", "--workspace", workspace, "--unit", UNITS[0]]) == 2
    assert capsys.readouterr().err == broken.format(graph="has no code-review stage") + "\n"

    # the compile upstream's check suggests numbers code-review after build-and-test
    installed.ok("graph", "compile")
    assert main(["review", "run", "--workspace", workspace, "--unit", UNITS[0]]) == 2
    assert (
        capsys.readouterr().err
        == broken.format(graph="code-review is not numbered right after code-generation any more")
        + "\n"
    )

    assert main(["install", "--harness", str(harness)]) == 0
    assert main(["doctor", "--workspace", workspace]) == 0
    assert "install is broken" not in capsys.readouterr().out
    assert installed.doctor_summary() == healthy
    graph = json.loads((harness / "tools/data/stage-graph.json").read_text())
    numbers = {n["slug"]: n["number"] for n in graph}
    assert [numbers[s] for s in ("code-generation", "code-review", "build-and-test")] == [
        "3.5", "3.6", "3.7",
    ]  # fmt: skip
