"""Gated enforcement inside upstream's engine, through the seam upstream offers: a Claude
Code PreToolUse hook that ``install`` registers in ``.claude/settings.json``.

A literal conductor follows upstream's directives, SKILL.md §12a and upstream's refusal
texts: it records code-review's reviewer receipts itself (``aidlc-log.ts review ...
--verdict READY``) and never runs ``aidlc-review review gate``. Every engine call it
makes is a Bash command that Claude Code's PreToolUse hooks see first
(``claude_code.py`` runs them as Claude Code does). The gated two-unit ``feature`` walk
then never approves code-review with a unit that is NOT-READY, unreviewed (a placeholder
``code-review.md``) or changed after its review, even when receipts reach upstream's
audit some other way; the honest walk, following the stage body, reaches
build-and-test with nothing refused.

Each walk goes on from a copy of the walk at its first code-generation directive
(``test_gated_walk.at_code_generation``, built once per run)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from tests import engine_export
from tests.hooks.test_engine_gate import UNREADABLE_SPELLINGS
from tests.upstream import test_gated_walk
from tests.upstream.claude_code import ClaudeCodeProject, Refused, registered_hooks
from tests.upstream.conductor import Conductor, Directive
from tests.upstream.engine import UpstreamProject
from tests.upstream.test_gated_walk import CLEAN, UNITS, UNUSED_IMPORT, Walked

pytestmark = pytest.mark.engine  # runs upstream's engine (tests/engine_export.py)

at_code_generation = test_gated_walk.at_code_generation  # the fixture: one walk per run
REVIEWER = "aidlc-code-reviewer-agent"
GATE_HOOK = 'bun "$CLAUDE_PROJECT_DIR/.claude/hooks/aidlc-review-engine-gate.ts"'
# The human gates the gated feature walk presents up to build-and-test (docs/install.md):
# 7 ideation, 8 inception (2.6.18: 9, reverse engineering too), and 6 construction stages
# (functional design, NFR requirements, NFR design, infrastructure design, code generation,
# code review), each once, on its last unit.
GATES_TO_BUILD_AND_TEST = {(2, 5): 21, (2, 6): 22}
CHANGED_AFTER_REVIEW = CLEAN + "\n\ndef shout(name: str) -> str:\n    return greet(name).upper()\n"


class GatedWalk:
    """The walk from code-generation on, every engine call a Bash command through the hooks."""

    def __init__(self, walked: Walked, where: Path, sources: dict[str, str]):
        self.project = ClaudeCodeProject.of(walked.project.copy_to(where / "project"))
        self.direct = UpstreamProject(self.project.root, self.project.env)  # no hooks
        self.sources = sources
        self.conductor = Conductor(self.project, UNITS)
        self.conductor.seen = list(walked.seen)
        self.conductor.on_stage = {"code-generation": self.generate}
        self.review_exits: list[int] = []
        directive = self.project.next()
        assert directive == walked.directive
        self.conductor.follow(directive)

    def generate(self, directive: Directive) -> None:
        self.conductor.write_artifacts(directive)
        self.conductor.record_review(directive, "READY")  # code-generation's own reviewer
        unit = directive["unit"]
        path = f"src/{unit.replace('-', '_')}.py"
        (self.project.root / "src").mkdir(exist_ok=True)
        (self.project.root / path).write_text(self.sources[unit])
        manifest = {"stage": "code-generation", "unit": unit, "version": 1}
        manifest["writes"] = [{"path": path}]
        record = self.project.root / Path(directive["produces"][0]).parent
        (record / "source-manifest.json").write_text(json.dumps(manifest))

    def review(self, unit: str) -> None:
        ran = self.project.bash(f"aidlc-review review run --workspace . --unit {unit}")
        assert ran.code in (0, 1), ran.stderr
        self.review_exits.append(ran.code)

    def mint(self, directive: Directive) -> None:
        """What SKILL.md §12a and upstream's refusal text say: record the receipts."""
        base = ["review", "--stage", "code-review", "--unit", directive["unit"]]
        base += ["--reviewer", REVIEWER, "--iteration", "1"]
        self.project.tool("log", *base)
        self.project.tool("log", *base, "--verdict", "READY")

    def mint_past_the_hook(self) -> None:
        """Receipts that reach upstream's audit without a Bash command the hook saw, at the
        first ordinal upstream takes (2.5.5 takes any; 2.6.18 numbers requests per attempt
        and refuses one past the review budget: then nothing can be minted for that unit)."""
        for unit in UNITS:
            base = ["review", "--stage", "code-review", "--unit", unit, "--reviewer", REVIEWER]
            for iteration in map(str, range(1, 10)):
                if self.direct.tool("log", *base, "--iteration", iteration).code == 0:
                    done = self.direct.tool(
                        "log", *base, "--iteration", iteration, "--verdict", "READY"
                    )
                    assert done.code == 0, done.stderr
                    break

    def approve_code_review(self) -> None:
        self.conductor.report("code-review", "--result", "approved", "--user-input", "Approve")

    def checkbox(self) -> str:
        state = next(self.project.root.glob("aidlc/spaces/default/intents/*/aidlc-state.md"))
        found = re.search(r"^- \[(.)\] code-review —", state.read_text(), re.M)
        assert found, "code-review is not in the workflow's state"
        return found.group(1)

    def next_stage(self) -> str:
        return self.direct.next()["stage"]

    def refused(self, pattern: str) -> list[str]:
        return [r.command for r in self.project.refusals if re.search(pattern, r.command)]


def _minting(walk: GatedWalk, review: bool, before_gate: Callable[[], None] | None = None):
    """code-review as the conductor runs it when it mints receipts and skips `review gate`."""

    def code_review(directive: Directive) -> None:
        if review:
            walk.review(directive["unit"])
        else:
            walk.conductor.write_artifacts(directive)  # a code-review.md nobody reviewed
        if directive["gate"] is True and before_gate is not None:
            before_gate()
        walk.mint(directive)  # refused; the conductor goes on to the gate regardless

    walk.conductor.on_stage["code-review"] = code_review


def test_install_registers_the_gate_the_way_upstream_registers_its_hooks(installed):
    hooks = [h["command"] for h in registered_hooks(installed, "PreToolUse", "Bash")]

    assert hooks[0] == GATE_HOOK
    assert (installed.harness / "hooks/aidlc-review-engine-gate.ts").is_file()
    doctor = installed.tool("aidlc", "doctor").stdout.strip().splitlines()
    assert "✓  aidlc-review-engine-gate.ts present" in doctor
    assert re.fullmatch(r"\d+ passed, 0 failed", doctor[-1])


def test_without_aidlc_review_the_hook_refuses_engine_commands_and_nothing_else(
    installed, tmp_path
):
    project = ClaudeCodeProject.of(installed)
    project.env["AIDLC_REVIEW_BIN"] = str(tmp_path / "not-installed")

    ran = project.tool("log", "review", "--stage", "code-review", "--reviewer", REVIEWER)

    assert ran.code == 2
    assert ran.stderr.startswith(
        "aidlc-review (the code-review plugin's engine gate) could not check this command ("
    )
    assert project.bash("git status --short").code == 0


def test_minted_receipts_do_not_approve_a_not_ready_unit(at_code_generation, tmp_path, on_path):
    walk = GatedWalk(
        at_code_generation, tmp_path, {"u1-greet": CLEAN, "u2-farewell": UNUSED_IMPORT}
    )
    _minting(walk, review=True)

    with pytest.raises(Refused) as refused:
        walk.conductor.walk_until("build-and-test")

    assert walk.review_exits == [0, 1, 1]
    minted = walk.refused(r"aidlc-log\.ts review --stage code-review")
    assert len(minted) == 6  # two per directive: u1, u2, u2 at the gate
    assert walk.refused(r"--stage code-generation") == []  # other stages' receipts go through
    reason = str(refused.value)
    assert "would approve code-review" in reason
    assert re.search(r"u2-farewell: .*the verdict recomputed now is NOT-READY", reason)
    assert "u1-greet" not in reason
    assert "aidlc-review review run --workspace . --unit <unit>" in reason
    assert walk.checkbox() == "?"  # awaiting approval, not approved
    assert walk.next_stage() == "code-review"

    walk.mint_past_the_hook()  # upstream's own precondition would now pass

    with pytest.raises(Refused, match="u2-farewell: .*NOT-READY"):
        walk.approve_code_review()
    assert walk.checkbox() == "?"


def test_no_unreadable_spelling_of_the_approval_gets_a_not_ready_unit_past_code_review(
    at_code_generation, tmp_path, on_path
):
    """Each spelling the hook cannot read to its end is refused through the hooks; the
    state keeps code-review awaiting approval, and an approval that did reach upstream past
    the hook would be named by the plugin's next command."""
    walk = GatedWalk(
        at_code_generation, tmp_path, {"u1-greet": CLEAN, "u2-farewell": UNUSED_IMPORT}
    )
    _minting(walk, review=True)
    with pytest.raises(Refused):
        walk.conductor.walk_until("build-and-test")
    walk.mint_past_the_hook()  # upstream's own precondition would now pass
    approve = "report --stage code-review --result approved --user-input Approve"
    root = walk.project.root
    (root / "approve.sh").write_text(f"bun .claude/tools/aidlc-orchestrate.ts {approve}\n")
    (root / "approve.py").write_text(
        "import subprocess\n"
        f"subprocess.run(['bun', '.claude/tools/aidlc-orchestrate.ts', *{approve.split()!r}])\n"
    )
    spellings = [
        *UNREADABLE_SPELLINGS,
        f'set -- {approve}; bun .claude/tools/aidlc-orchestrate.ts "$@"',
        f"echo {approve} | xargs bun .claude/tools/aidlc-orchestrate.ts",
        f"bun .claude/tools/aidlc-orches\\\ntrate.ts {approve}",
        "sh ./approve.sh",
    ]
    for spelling in spellings:
        ran = walk.project.bash(spelling)
        assert ran.code == 2 and walk.project.last_refusal is not None, spelling
        assert walk.checkbox() == "?", spelling
    assert walk.next_stage() == "code-review"


def test_minted_receipts_do_not_approve_an_unreviewed_unit(at_code_generation, tmp_path, on_path):
    walk = GatedWalk(at_code_generation, tmp_path, {u: CLEAN for u in UNITS})
    _minting(walk, review=False, before_gate=walk.mint_past_the_hook)

    with pytest.raises(Refused) as refused:
        walk.conductor.walk_until("build-and-test")

    assert walk.review_exits == []
    assert len(walk.refused(r"aidlc-log\.ts review --stage code-review")) == 6
    reason = str(refused.value)
    for unit in UNITS:
        assert re.search(rf"{unit}: .*code-review-findings\.json: not reviewed, not READY", reason)
    assert walk.checkbox() == "?"
    assert walk.next_stage() == "code-review"


def test_a_unit_changed_after_its_review_is_not_approved_until_reviewed_again(
    at_code_generation, tmp_path, on_path
):
    walk = GatedWalk(at_code_generation, tmp_path, {u: CLEAN for u in UNITS})

    def change_u1() -> None:
        (walk.project.root / "src/u1_greet.py").write_text(CHANGED_AFTER_REVIEW)

    _minting(walk, review=True, before_gate=change_u1)

    with pytest.raises(Refused) as refused:
        walk.conductor.walk_until("build-and-test")

    assert walk.review_exits == [0, 0, 0]  # READY: the plugin recorded upstream's receipts
    reason = str(refused.value)
    assert "  u1-greet: src/u1_greet.py: claimed file changed since the receipt\n" in reason
    # u1's new bytes are outside what any review covered: u2's review does not hold either
    assert "  u2-farewell: src/u1_greet.py: unclaimed source changed since" in reason
    assert walk.checkbox() == "?"

    for unit in UNITS:  # what the refusal says to do, unit by unit
        walk.review(unit)
    assert walk.review_exits[3:] == [0, 0]
    for unit in UNITS:
        walk.project.bash_ok(f"aidlc-review review gate --workspace . --unit {unit} --approve")
    walk.approve_code_review()

    assert walk.checkbox() == "x"
    assert walk.conductor.walk_until("build-and-test")["stage"] == "build-and-test"


def test_the_honest_walk_reaches_build_and_test_with_nothing_refused(
    at_code_generation, tmp_path, on_path
):
    walk = GatedWalk(at_code_generation, tmp_path, {u: CLEAN for u in UNITS})

    def code_review(directive: Directive) -> None:
        walk.review(directive["unit"])
        if directive["gate"] is True:  # the stage body's Step 3, then the conductor approves
            for unit in UNITS:
                walk.project.bash_ok(f"aidlc-review review status --workspace . --unit {unit}")
                walk.project.bash_ok(
                    f"aidlc-review review gate --workspace . --unit {unit} --approve"
                )

    walk.conductor.on_stage["code-review"] = code_review

    reached = walk.conductor.walk_until("build-and-test")

    assert reached["stage"] == "build-and-test"
    assert walk.project.refusals == []
    assert walk.review_exits == [0, 0, 0]
    gates = [(s, u) for s, u, g in walk.conductor.seen if g is True]
    expected = GATES_TO_BUILD_AND_TEST[engine_export.version()[:2]]
    assert len(gates) == expected, " ".join(s for s, _ in gates)
    assert [s for s, _ in gates].count("code-review") == 1
    assert [s for s, _ in gates].count("code-generation") == 1


def test_without_the_plugin_the_gate_hook_is_gone_and_the_file_as_before(installed, tmp_path):
    before = installed.git("show", "HEAD:.claude/settings.json")
    assert (installed.harness / "settings.json").read_text() != before

    from aidlc_review.cli.main import main

    assert main(["uninstall", "--harness", str(installed.harness)]) == 0

    assert (installed.harness / "settings.json").read_text() == before
    assert not (installed.harness / "hooks/aidlc-review-engine-gate.ts").exists()
    assert re.fullmatch(r"\d+ passed, 0 failed", installed.doctor_summary())
