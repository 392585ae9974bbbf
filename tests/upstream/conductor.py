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

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.upstream.engine import UNITS_FILE, UpstreamProject

Directive = dict[str, Any]
StageHook = Callable[[Directive], None]


class WalkStopped(AssertionError):
    """The engine said something the walk cannot follow."""


@dataclass
class Conductor:
    project: UpstreamProject
    units: list[str]
    on_stage: dict[str, StageHook] = field(default_factory=dict)
    seen: list[tuple[str, str | None, Any]] = field(default_factory=list)

    def birth(self, scope: str = "feature") -> None:
        self.project.ok(
            "utility",
            "intent-birth",
            "--scope",
            scope,
            "--arguments",
            "a greeting library",
            "--label",
            "greeting lib",
        )

    def walk_until(self, stage: str, limit: int = 400) -> Directive:
        """Run every directive until one names ``stage`` (returned, not run)."""
        for _ in range(limit):
            directive = self.project.ok("orchestrate", "next").json()
            if directive.get("kind") == "run-stage" and directive["stage"] == stage:
                return directive
            self.follow(directive)
        raise WalkStopped(f"{stage} not reached in {limit} directives")

    def follow(self, directive: Directive) -> None:
        kind = directive.get("kind")
        if kind != "run-stage":
            raise WalkStopped(f"unexpected directive: {directive}")
        stage, gate = directive["stage"], directive.get("gate")
        self.seen.append((stage, directive.get("unit"), gate))
        if gate == "unresolved":
            self.report(stage, "--skeleton-stance", "off")
            return
        hook = self.on_stage.get(stage)
        if hook is not None:
            hook(directive)
        else:
            self.write_artifacts(directive)
            self.record_review(directive, "READY")
        if gate is True:
            self.approve(stage, directive.get("produces"))
        elif directive.get("gate_deferred_to"):
            # Only with docs/upstream-gate-deferral.patch: the stage completes
            # directly and the named later stage's gate approves it.
            self.report(stage, "--result", "completed")

    def write_artifacts(self, directive: Directive) -> None:
        root = self.project.root
        for produced in directive.get("produces", []):
            path = root / produced
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(self.artifact_text(path), encoding="utf-8")
        if directive.get("mode") in ("mob", "subagent", "pipeline"):
            stage_dir = root / Path(directive["memory_path"]).parent
            for agent in directive.get("support_agents", []):
                note = stage_dir / "contributions" / f"{agent}.md"
                note.parent.mkdir(parents=True, exist_ok=True)
                note.write_text(f"**Collaborator:** {agent}\n\n## Contribution\n\nok\n")

    def artifact_text(self, path: Path) -> str:
        if path.stem == UNITS_FILE:
            rows = "\n".join(f"  - name: {u}\n    depends_on: []" for u in self.units)
            return f"# Units\n\n## Units\n\n```yaml\nunits:\n{rows}\n```\n\n## Notes\n\nok\n"
        return f"# {path.stem}\n\n## Summary\n\nok\n\n## Details\n\nok\n"

    def record_review(self, directive: Directive, verdict: str) -> None:
        reviewer = directive.get("reviewer")
        if not reviewer:
            return
        unit = ["--unit", directive["unit"]] if directive.get("unit") else []
        base = ["review", "--stage", directive["stage"], *unit, "--reviewer", reviewer]
        self.project.ok("log", *base, "--iteration", "1")
        self.project.ok("log", *base, "--iteration", "1", "--verdict", verdict)

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

    def press_enter(self) -> None:
        """What upstream's UserPromptSubmit hook does when a human types at a gate."""
        hook = self.project.root / ".claude/hooks/aidlc-mint-presence.ts"
        ran = self.project.tool_path(hook, stdin="{}")
        assert ran.code == 0, ran.stderr

    def report(self, stage: str, *args: str) -> Directive:
        out = self.project.ok("orchestrate", "report", "--stage", stage, *args).json()
        if out.get("kind") == "error":
            raise WalkStopped(f"report {stage} {' '.join(args)}: {out['message']}")
        return out
