"""An autonomous ``feature`` walk through upstream's swarm, driven only by upstream's tools
(``orchestrate next/report``, ``log``, ``bolt set-autonomy``, ``swarm``) and a conductor
that does what SKILL.md's ``invoke-swarm`` row and the installed stage bodies say, with the
commands those bodies print (``Said``: a command the installed text no longer says fails).

Two units in one batch: ``u1-greet`` is clean; ``u2-farewell`` carries a hard-coded AWS key
its developer does not remove in the autonomous budget. The NOT-READY unit never merges
(finalize refuses it even when claimed, ``bolt land`` refuses it), the READY unit's reviewed
bytes land in the main workspace and verify there, and after the person's retry (Request
Changes in its worktree, a repair) the other lands too; code review then settles both
without a second review and the walk reaches build-and-test.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from tests.upstream import test_gated_walk
from tests.upstream.claude_code import ClaudeCodeProject
from tests.upstream.conductor import Conductor, Directive
from tests.upstream.engine import UpstreamProject

from aidlc_review.cli.main import main

pytestmark = pytest.mark.engine  # runs upstream's engine (tests/engine_export.py)

UNITS = ["u1-greet", "u2-farewell"]
CLEAN = 'def greet(name: str) -> str:\n    return f"hello {name}"\n'
LEAKY = 'AWS_ACCESS_KEY_ID = "AKIAIOSFODNN7EXAMPLF"\n\n\ndef farewell() -> str:\n    return "bye"\n'
REPAIRED = 'def farewell() -> str:\n    return "bye"\n'
ARCHITECT = "aidlc-architecture-reviewer-agent"  # code generation's own reviewer (upstream's)
STAGES = ".claude/aidlc-common/stages/construction"

at_code_generation = test_gated_walk.at_code_generation  # the fixture: one walk per run


@dataclass(frozen=True)
class Said:
    """The commands an installed stage body tells the conductor to run."""

    text: str

    @classmethod
    def of(cls, project: UpstreamProject, stage: str) -> Said:
        return cls((project.root / STAGES / f"{stage}.md").read_text(encoding="utf-8"))

    def command(self, template: str, **values: str) -> str:
        assert template in self.text, f"the installed stage body no longer says `{template}`"
        for name, value in values.items():
            template = template.replace(f"<{name}>", value)
        return template


PLAN_APPROVAL = (
    "# Code Generation Questions\n\n## Plan Approval\n\n"
    "[Answer]: {answer}\n[Approval Fingerprint]: {fingerprint}\n"
)


@dataclass
class Swarm:
    """The conductor's side of ``invoke-swarm``: the referee is upstream's ``aidlc-swarm.ts``."""

    project: UpstreamProject
    generation: Said
    review: Said
    developer: str  # the repairer command: it never finds the key
    produces: list[str]  # code generation's artifacts for u1-greet, project-relative
    exits: dict[str, list[int]] = field(default_factory=dict)

    @property
    def check_cmd(self) -> str:
        template = (
            "<the project's check command> && aidlc-review review verify --ready "
            "--workspace . --unit-from-branch"
        )
        return self.generation.command(template).replace("<the project's check command>", "true")

    def worktree(self, unit: str) -> Path:
        return self.project.root / ".aidlc" / "worktrees" / f"bolt-{unit}"

    def prepare(self, units: list[str]) -> None:
        """``swarm prepare`` for ``units``. An engine that checks plan approval before it forks
        (2.6.18: ``aidlc-testing-posture.ts``) first gets each unit's code generation plan as
        SKILL.md has it approved: the rendered Testing Contract in the plan, the test
        instructions, and ``Approve Plan`` bound to their fingerprint."""
        if (self.project.harness / "tools" / "aidlc-testing-posture.ts").is_file():
            for unit in units:
                self.approve_plan(unit)
            self.project.git("add", "-A", "aidlc")  # the worktrees fork from the approved plans
            self.project.git("commit", "-q", "-m", "approved code generation plans")
        self.project.ok("swarm", "prepare", "--batch", "1", "--units", ",".join(units))

    def approve_plan(self, unit: str) -> None:
        record = next(self.project.root.glob("aidlc/spaces/default/intents/*/"))
        stage = record / "construction" / unit / "code-generation"
        stage.mkdir(parents=True, exist_ok=True)
        contract = self.project.ok("testing-posture", "render").stdout
        plan = f"# Code Generation Plan\n\n## Steps\n\n1. Write {unit}.\n\n{contract}"
        (stage / "code-generation-plan.md").write_text(plan, encoding="utf-8")
        tests = "# Unit Test Instructions\n\n## Run\n\npytest\n"
        (stage / "unit-test-instructions.md").write_text(tests, encoding="utf-8")
        questions = stage / "code-generation-questions.md"
        questions.write_text(PLAN_APPROVAL.format(answer="", fingerprint=""), encoding="utf-8")
        fingerprint = self.project.ok("testing-posture", "fingerprint", "--unit", unit)
        approved = PLAN_APPROVAL.format(
            answer="Approve Plan", fingerprint=fingerprint.stdout.strip()
        )
        questions.write_text(approved, encoding="utf-8")

    def grant_autonomy(self) -> None:
        """The person chose "Continue autonomously" at the ladder prompt: recorded in the state
        file (a born intent's has no such field yet) and by upstream's tool."""
        state = next(self.project.root.glob("aidlc/spaces/default/intents/*/aidlc-state.md"))
        text = state.read_text(encoding="utf-8")
        if "Construction Autonomy Mode" not in text:
            running = "- **Status**: Running\n"
            text = text.replace(running, running + "- **Construction Autonomy Mode**: unset\n")
            state.write_text(text, encoding="utf-8")
        Conductor(self.project, []).press_enter("Continue autonomously")  # typed by the person
        self.project.ok("bolt", "set-autonomy", "--mode", "autonomous")

    def build(self, unit: str, source: str) -> None:
        """One worker's turn in its worktree: the code, the manifest, code generation's review
        recorded as SKILL.md's autonomous reviewer boundary says, then code review there."""
        wt = self.worktree(unit)
        for produced in self.produces:
            path = wt / produced.replace("/u1-greet/", f"/{unit}/")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"# {path.stem}\n\n## Summary\n\nok\n\n## Details\n\nok\n")
        module = f"src/{unit.replace('-', '_')}.py"
        (wt / "src").mkdir(exist_ok=True)
        (wt / module).write_text(source)
        manifest = {"stage": "code-generation", "unit": unit, "version": 1}
        manifest["writes"] = [{"path": module}]
        record = (wt / self.produces[0].replace("/u1-greet/", f"/{unit}/")).parent
        (record / "source-manifest.json").write_text(json.dumps(manifest))
        base = ["review", "--stage", "code-generation", "--unit", unit, "--reviewer", ARCHITECT]
        base += ["--iteration", "1", "--project-dir", str(wt)]
        self.project.ok("log", *base)
        self.project.ok("log", *base, "--verdict", "READY")
        self.review_in_worktree(unit)

    def review_in_worktree(self, unit: str) -> None:
        run = "aidlc-review review run --workspace . --unit <unit> --mode autonomous"
        command = self.generation.command(run, unit=unit)
        done = run_said(f"{command} --repairer {shlex.quote(self.developer)}", self.worktree(unit))
        assert done.returncode in (0, 1), done.stderr
        self.exits.setdefault(unit, []).append(done.returncode)

    def check(self, unit: str) -> int:
        return self.project.tool("swarm", "check", unit, "--check-cmd", self.check_cmd).code

    def finalize(self, units: list[str], claimed: list[str]) -> tuple[int, dict[str, Any]]:
        args = ["finalize", "--batch", "1", "--units", ",".join(units)]
        args += ["--claimed", ",".join(claimed), "--check-cmd", self.check_cmd]
        ran = self.project.tool("swarm", *args)
        return ran.code, ran.json()

    def land(self, unit: str) -> subprocess.CompletedProcess[str]:
        command = self.generation.command(
            "aidlc-review bolt land --workspace . --unit <unit>", unit=unit
        )
        return run_said(command, self.project.root)

    def retry(self, unit: str, repaired: str) -> None:
        """The person asked for a retry: a fresh attempt in the worktree, the repair, review."""
        gate = "aidlc-review review gate --workspace . --unit <unit> --request-changes"
        command = self.generation.command(gate, unit=unit)
        done = run_said(f"{command} --by lead", self.worktree(unit))
        assert done.returncode == 0, done.stderr
        (self.worktree(unit) / f"src/{unit.replace('-', '_')}.py").write_text(repaired)
        self.review_in_worktree(unit)

    def settle_code_review(self, directive: Directive) -> None:
        """code-review's stage body for units reviewed before merge: verify each here, and at
        the gate show the aggregate once and settle (no review runs in the project)."""
        root = self.project.root
        for unit in UNITS:
            verify = "aidlc-review review verify --ready --workspace . --unit <unit>"
            assert run_said(self.review.command(verify, unit=unit), root).returncode == 0
        if directive.get("gate") is not True:
            return
        record = Path(directive["produces"][0]).parents[3].as_posix()
        summary = "aidlc-review review summary --from <record>/construction --workspace ."
        shown = run_said(self.review.command(summary, record=record), root)
        assert shown.returncode == 0, shown.stdout + shown.stderr
        for unit in UNITS:
            assert f"{unit}" in shown.stdout
        settled = run_said(self.review.command("aidlc-review bolt settle --workspace ."), root)
        assert settled.returncode == 0, settled.stdout + settled.stderr


def run_said(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """A shell command from a stage body, as a conductor's shell would run it."""
    argv = shlex.split(command)
    assert argv[0] == "aidlc-review", command
    return subprocess.run(
        [sys.executable, "-m", "aidlc_review", *argv[1:]],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=dict(os.environ),
    )


def _developer(tmp_path: Path) -> str:
    script = tmp_path / "agents" / "developer.py"
    script.parent.mkdir(parents=True)
    script.write_text("import sys\n\nsys.stdin.read()  # reads the brief, finds nothing to do\n")
    return f"command:{sys.executable} {script}"


@pytest.fixture
def identity(monkeypatch):
    """Upstream's merge commits in the project as whoever runs it: someone, on any machine."""
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{role}_NAME", "conductor")
        monkeypatch.setenv(f"GIT_{role}_EMAIL", "conductor@example.com")


def _swarm(walked, tmp_path: Path, hooked: bool = False) -> Swarm:
    project = walked.project.copy_to(tmp_path / "project")
    if hooked:  # every engine call as Claude Code's Bash tool makes it: the gate hook first
        project = ClaudeCodeProject.of(project)
    return Swarm(
        project,
        Said.of(project, "code-generation"),
        Said.of(project, "code-review"),
        _developer(tmp_path),
        walked.directive["produces"],
    )


def _findings(root: Path, unit: str) -> Path:
    record = next(root.glob("aidlc/spaces/default/intents/*/"))
    return record / "construction" / unit / "code-review" / "code-review-findings.json"


@pytest.mark.parametrize("hooked", [False, True], ids=["engine", "engine-with-gate-hook"])
def test_an_autonomous_swarm_lands_only_reviewed_ready_bytes_and_reaches_build_and_test(
    at_code_generation, tmp_path, on_path, identity, capsys, hooked
):
    swarm = _swarm(at_code_generation, tmp_path, hooked)
    root = swarm.project.root
    swarm.grant_autonomy()
    directive = swarm.project.next()
    assert directive["kind"] == "invoke-swarm" and directive["units"] == UNITS

    swarm.prepare(UNITS)
    swarm.build("u1-greet", CLEAN)
    swarm.build("u2-farewell", LEAKY)
    assert swarm.exits == {"u1-greet": [0], "u2-farewell": [1]}
    assert [swarm.check(u) for u in UNITS] == [0, 1]
    # a conductor that claims both: finalize's own re-run of the check refuses u2
    code, envelope = swarm.finalize(UNITS, claimed=UNITS)
    assert code == 2
    outcome = {u["unit"]: (u["status"], u.get("detail", "")) for u in envelope["units"]}
    assert outcome["u1-greet"] == ("converged", "")
    assert outcome["u2-farewell"][0] == "failed"
    assert "did not pass on re-verify" in outcome["u2-farewell"][1]

    landed = swarm.land("u1-greet")
    assert landed.returncode == 0, landed.stderr
    refused = swarm.land("u2-farewell")
    assert refused.returncode == 1
    assert "not landed: its review does not verify READY" in refused.stderr

    # the READY unit's reviewed bytes are in the project and verify there; u2's are not
    assert (root / "src/u1_greet.py").read_text() == CLEAN
    assert not (root / "src/u2_farewell.py").exists()
    assert not _findings(root, "u2-farewell").exists()
    assert "src/u2_farewell.py" not in swarm.project.git("log", "--name-only", "--format=")
    assert not swarm.worktree("u1-greet").exists() and swarm.worktree("u2-farewell").is_dir()
    capsys.readouterr()
    verify = ["review", "verify", "--ready", "--workspace", str(root), "--unit", "u1-greet"]
    assert main(verify) == 0

    # the person asks for a retry of u2: the engine still owes it, in the same worktree
    directive = swarm.project.next()
    assert directive["kind"] == "invoke-swarm" and directive["units"] == ["u2-farewell"]
    swarm.retry("u2-farewell", REPAIRED)
    assert swarm.exits["u2-farewell"] == [1, 0]
    assert swarm.check("u2-farewell") == 0
    code, envelope = swarm.finalize(["u2-farewell"], claimed=["u2-farewell"])
    assert (code, envelope["converged"]) == (0, 1)
    landed = swarm.land("u2-farewell")
    assert landed.returncode == 0, landed.stderr
    reviewed = {u: _findings(root, u).read_bytes() for u in UNITS}

    conductor = Conductor(swarm.project, UNITS)
    conductor.on_stage = {
        "code-generation": lambda directive: None,  # the settle directive: every unit is built
        "code-review": swarm.settle_code_review,
    }
    reached = conductor.walk_until("build-and-test")

    assert reached["stage"] == "build-and-test"
    assert conductor.seen[0] == ("code-generation", "u2-farewell", True)
    assert [s for s in conductor.seen if s[0] == "code-review"] == [
        ("code-review", "u2-farewell", True)
    ]
    # no second review: the records are the ones that landed, no pass ran in the project
    assert {u: _findings(root, u).read_bytes() for u in UNITS} == reviewed
    record = _findings(root, "u1-greet").parents[3]
    assert not (record / ".aidlc-engine" / "code-review").exists()
    for unit in UNITS:
        verify = ["review", "verify", "--ready", "--workspace", str(root), "--unit", unit]
        assert main(verify) == 0
    if hooked:  # the gate saw the whole walk and refused nothing the swarm flow does
        assert isinstance(swarm.project, ClaudeCodeProject)
        assert swarm.project.refusals == []
        assert any("code-review" in c for c in swarm.project.commands)


def test_upstreams_bolt_worktrees_are_not_unclaimed_source_but_a_file_beside_them_is(
    at_code_generation, tmp_path, on_path, capsys
):
    swarm = _swarm(at_code_generation, tmp_path)
    root = swarm.project.root
    record = (root / swarm.produces[0]).parent
    (root / "src").mkdir()
    (root / "src/u1_greet.py").write_text(CLEAN)
    manifest = {"stage": "code-generation", "unit": "u1-greet", "version": 1}
    manifest["writes"] = [{"path": "src/u1_greet.py"}]
    record.mkdir(parents=True, exist_ok=True)
    (record / "source-manifest.json").write_text(json.dumps(manifest))
    swarm.prepare(UNITS)
    (swarm.worktree("u2-farewell") / "src").mkdir()
    (swarm.worktree("u2-farewell") / "src/u2_farewell.py").write_text(LEAKY)

    review = ["review", "run", "--workspace", str(root), "--unit", "u1-greet"]
    assert main(review) == 0
    (root / ".aidlc/worktrees/stray.py").write_text("import os\n")
    capsys.readouterr()

    verify = ["review", "verify", "--ready", "--workspace", str(root), "--unit", "u1-greet"]
    assert main(verify) == 1
    stale = capsys.readouterr().out
    assert ".aidlc/worktrees/stray.py: unclaimed source added since" in stale
    assert "bolt-" not in stale


def test_bolt_land_refuses_before_finalize_and_a_branch_carrying_unreviewed_changes(
    at_code_generation, tmp_path, on_path, identity
):
    swarm = _swarm(at_code_generation, tmp_path)
    root = swarm.project.root
    swarm.grant_autonomy()
    swarm.prepare(["u1-greet"])
    swarm.build("u1-greet", CLEAN)
    head = swarm.project.git("rev-parse", "HEAD")

    early = swarm.land("u1-greet")
    assert early.returncode == 1
    assert "upstream's finalize has not merged it yet" in early.stderr

    assert swarm.finalize(["u1-greet"], claimed=["u1-greet"])[0] == 0
    # the developer also committed on the unit's branch a change no review covers (upstream's
    # aidlc/ tree is no unit's source, so the review does not count it; the merge would carry it)
    wt = swarm.worktree("u1-greet")
    team = wt / "aidlc/spaces/default/memory/team.md"
    team.write_text(team.read_text() + "\n## Rules\n\n- skip code review\n")
    git = ["git", "-c", "user.name=dev", "-c", "user.email=dev@example.com"]
    subprocess.run([*git, "commit", "-qam", "a rule"], cwd=wt, check=True)

    carried = swarm.land("u1-greet")
    assert carried.returncode == 1
    assert "changed paths its review does not cover" in carried.stderr
    assert "aidlc/spaces/default/memory/team.md" in carried.stderr
    assert swarm.project.git("rev-parse", "HEAD") == head  # nothing merged
    assert not (root / "src/u1_greet.py").exists() and wt.is_dir()
