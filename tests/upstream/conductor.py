"""A mechanical conductor for upstream's engine: follow ``next``, write, review, report.

It does what an LLM conductor does with upstream's directives, with no judgement:
every ``produces`` path gets a small Markdown artifact with two sections, the
units file gets a fenced ``yaml`` units block, every support agent of a
dispatched topology leaves its contribution file, a stage with a reviewer gets
its review recorded, and every gate is approved (a stage whose gate is deferred,
``gate_deferred_to`` from the proposed upstream patch, is reported completed).
``on_stage`` lets a test take over one stage (for example code-review, to run
``aidlc-review`` there).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.upstream.engine import UNITS_FILE, UpstreamProject

from aidlc_review.upstream.intents import project_intents

Directive = dict[str, Any]
StageHook = Callable[[Directive], None]
CONFIRMATIONS = "Looks correct,Request changes"
_STALE_SUMMARY = re.compile(
    r'Refusing to complete "([a-z0-9-]+)" for unit "([^"]+)": no fresh human-backed '
    "consolidated summary confirmation"
)
_UNSAVED = re.compile(r"artifact (/\S+\.\w+) has no recorded native-tool write after")
SUMMARY = (
    "# Questions\n\n## Consolidated Summary Confirmation\n\n"
    "Does this all look correct?\n\n[Answer]: {answer}\n"
)


class WalkStopped(AssertionError):
    """The engine said something the walk cannot follow."""


@dataclass
class Conductor:
    project: UpstreamProject
    units: list[str]
    on_stage: dict[str, StageHook] = field(default_factory=dict)
    seen: list[tuple[str, str | None, Any]] = field(default_factory=list)
    waved: set[str] = field(default_factory=set)  # stages whose units ran as a wave (2.6)

    def birth(self, scope: str = "feature") -> None:
        self.project.birth(scope, "a greeting library", "greeting lib")

    def walk_until(self, stage: str, limit: int = 400) -> Directive:
        """Run every directive until one names ``stage`` (returned, not run)."""
        for _ in range(limit):
            directive = self.project.next()
            if directive.get("kind") == "run-stage" and directive["stage"] == stage:
                return directive
            self.follow(directive)
        raise WalkStopped(f"{stage} not reached in {limit} directives")

    def follow(self, directive: Directive) -> None:
        kind = directive.get("kind")
        if kind == "error" and self.recover(directive.get("message", "")):
            return  # did what the engine's refusal says; the next directive goes on
        if kind != "run-stage":
            raise WalkStopped(f"unexpected directive: {directive}")
        stage, gate = directive["stage"], directive.get("gate")
        self.seen.append((stage, directive.get("unit"), gate))
        if gate == "unresolved":
            self.report(stage, "--skeleton-stance", "off")
            return
        if directive.get("wave"):
            self.follow_wave(directive)
            return
        settled = stage in self.waved or self.again(directive)
        if not settled:
            self.confirm_summary(directive)
        hook = self.on_stage.get(stage)
        if hook is not None:
            hook(directive)
        elif settled:
            pass  # the stage gate after its units ran (2.6 counts a second review as two)
        else:
            self.write_artifacts(directive)
            self.record_review(directive, "READY")
        if gate is True:
            self.approve(stage, directive.get("produces"))
        elif directive.get("gate_deferred_to"):
            # Only with docs/upstream-gate-deferral.patch: the stage completes
            # directly and the named later stage's gate approves it.
            self.report(stage, "--result", "completed")

    def again(self, directive: Directive) -> bool:
        """The last unit's directive again, with the stage gate (or the gate deferred to a
        later stage, under the proposed patch), after it ran."""
        settling = directive.get("gate") is True or bool(directive.get("gate_deferred_to"))
        return settling and self.built(directive["stage"], directive.get("unit"))

    def recover(self, message: str) -> bool:
        """2.6's refusals of a per-unit stage whose summary stop no longer counts (a walk
        that changed its iteration order): answer the summary again, then save again what it
        names, as the refusals say. False for any other error."""
        stale = _STALE_SUMMARY.search(message)
        if stale is not None:
            stage, unit = stale.groups()
            record = next(self.project.root.glob("aidlc/spaces/*/intents/*/"))
            folder = record / "construction" / unit / stage
            produces = [str((folder / "x.md").relative_to(self.project.root))]
            self.confirm_summary({"stage": stage, "unit": unit, "produces": produces,
                                  "memory_path": produces[0]})  # fmt: skip
            return True
        unsaved = _UNSAVED.search(message)
        if unsaved is not None:
            self.project.written(Path(unsaved.group(1)))
            return True
        return False

    def built(self, stage: str, unit: str | None) -> bool:
        """Whether ``unit`` of ``stage`` already ran (before this directive) in this walk."""
        return unit is not None and (stage, unit, False) in self.seen[:-1]

    def follow_wave(self, directive: Directive) -> None:
        """2.6's per-unit batch wave (SKILL.md "Per-unit batch waves"): each entry is one
        unit of the stage, built, reviewed and settled with ``unit complete --wave``; then
        ``next`` again, no report (the stage gate comes once every entry settled). Entries
        run serially, one per directive: the engine numbers the next review from the
        reviews recorded so far, so the next entry's iteration is read afresh."""
        stage = directive["stage"]
        self.waved.add(stage)
        for entry in directive["wave"]["entries"][:1]:
            unit = {**directive, **entry, "unit": entry["unit"]}
            self.seen.append((stage, entry["unit"], "wave"))
            if entry.get("build_required"):
                self.confirm_summary(unit)
                self.write_artifacts(unit)
            if entry.get("review_state") == "outstanding":
                self.record_review(unit, "READY", entry.get("review_iteration", 1))
            if entry.get("completion_required"):
                self.project.ok(
                    "state", "unit", "complete", "--wave", "--stage", stage, "--unit", entry["unit"]
                )

    def write_artifacts(self, directive: Directive) -> None:
        if self.again(directive):
            return  # written when the unit ran; a rewrite would stale its review (2.6)
        root = self.project.root
        for produced in directive.get("produces", []):
            path = root / produced
            if path.name.endswith("-questions.md") and path.is_file():
                continue  # the summary stop wrote it (2.6): its answer is the record
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(self.artifact_text(path), encoding="utf-8")
            self.project.written(path)
        if directive.get("mode") in ("mob", "subagent", "pipeline"):
            stage_dir = root / Path(directive["memory_path"]).parent
            for agent in directive.get("support_agents", []):
                note = stage_dir / "contributions" / f"{agent}.md"
                note.parent.mkdir(parents=True, exist_ok=True)
                note.write_text(f"**Collaborator:** {agent}\n\n## Contribution\n\nok\n")

    def confirm_summary(self, directive: Directive) -> None:
        """2.6's pre-generation summary stop (SKILL.md): a stage declaring
        ``summary_confirmation: required`` gets its questions file with the consolidated
        section, the prompt recorded, a human turn, and the answer ``Looks correct``
        recorded before anything is generated. (Not in autonomous construction, where the
        engine asks for none.)"""
        node = self.node(directive["stage"])
        if node.get("summary_confirmation") != "required":
            return
        if node["phase"] == "construction" and self.autonomous():
            return
        stage = directive["stage"]
        memory = directive.get("unit_memory_path") or directive["memory_path"]
        if directive.get("unit") and directive.get("produces"):
            memory = directive["produces"][0]  # the unit's own folder of the stage
        questions = Path(memory).parent / f"{stage}-questions.md"
        path = self.project.root / questions
        path.parent.mkdir(parents=True, exist_ok=True)
        unit = ["--unit", directive["unit"]] if directive.get("unit") else []
        checkpoint = ["--checkpoint", "summary-confirmation", "--questions-file", str(questions)]
        path.write_text(SUMMARY.format(answer=""), encoding="utf-8")
        self.project.written(path)
        asked = ("--decision", "Does this all look correct?", "--options", CONFIRMATIONS)
        self.project.ok("log", "decision", "--stage", stage, *checkpoint, *asked, *unit)
        self.press_enter()
        path.write_text(SUMMARY.format(answer="Looks correct"), encoding="utf-8")
        self.project.written(path)
        answered = ("--details", "Looks correct")
        self.project.ok("log", "answer", "--stage", stage, *checkpoint, *answered, *unit)

    def node(self, stage: str) -> dict[str, Any]:
        graph = self.project.harness / "tools" / "data" / "stage-graph.json"
        return next(n for n in json.loads(graph.read_text(encoding="utf-8")) if n["slug"] == stage)

    def autonomous(self) -> bool:
        return any(
            state.field("Construction Autonomy Mode") == "autonomous"
            for state in project_intents(self.project.root)
        )

    def artifact_text(self, path: Path) -> str:
        if path.suffix == ".json":  # 2.6's traceability.json
            return "{}\n"
        if path.stem == UNITS_FILE:
            rows = "\n".join(f"  - name: {u}\n    depends_on: []" for u in self.units)
            return f"# Units\n\n## Units\n\n```yaml\nunits:\n{rows}\n```\n\n## Notes\n\nok\n"
        return f"# {path.stem}\n\n## Summary\n\nok\n\n## Details\n\nok\n"

    def record_review(self, directive: Directive, verdict: str, iteration: int = 1) -> None:
        reviewer = directive.get("reviewer")
        if not reviewer or self.again(directive):
            return  # recorded when the unit ran (2.6 numbers every request: no repeat)
        unit = ["--unit", directive["unit"]] if directive.get("unit") else []
        base = ["review", "--stage", directive["stage"], *unit, "--reviewer", reviewer]
        self.project.ok("log", *base, "--iteration", str(iteration))
        self.project.ok("log", *base, "--iteration", str(iteration), "--verdict", verdict)

    def approve(self, stage: str, produced: list[str] | None = None) -> None:
        self.report(stage, "--result", "awaiting-approval")
        if stage == "practices-discovery":
            drafts = {Path(p).stem: p for p in produced or []}
            self.project.ok(
                "state",
                "practices-promote",
                "--team-practices",
                drafts["team-practices"],
                "--discovered-rules",
                drafts["discovered-rules"],
            )
        self.press_enter()
        self.report(stage, "--result", "approved", "--user-input", "Approve")

    def press_enter(self, prompt: str = "Approve") -> None:
        """What upstream's UserPromptSubmit hooks (2.5.5's ``aidlc-mint-presence.ts``,
        2.6.18's ``aidlc-record-human-turn.ts``) do when a human types at a gate."""
        self.project.run_hooks("UserPromptSubmit", "", {"prompt": prompt})

    def report(self, stage: str, *args: str) -> Directive:
        out = self.project.ok("orchestrate", "report", "--stage", stage, *args).json()
        if out.get("kind") == "error":
            raise WalkStopped(f"report {stage} {' '.join(args)}: {out['message']}")
        return out
