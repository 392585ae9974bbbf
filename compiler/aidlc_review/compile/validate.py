"""Cross-file validation of a loaded harness (DESIGN §3.3).

Every problem is collected as a breadcrumb; nothing is raised until the end.
Warnings (scope names without a scope file) become errors under ``strict``.
"""

from __future__ import annotations

from collections.abc import Iterable

from aidlc_review.compile.graph import StageGraph
from aidlc_review.diagnostics import Diagnostic
from aidlc_review.harness.breadcrumbs import did_you_mean
from aidlc_review.harness.definitions.stage import Stage
from aidlc_review.harness.loader import Harness

PSEUDO_AGENTS = frozenset({"orchestrator"})


def _unknown(name: str, known: Iterable[str], what: str) -> str:
    return f"unknown {what} {name!r}" + did_you_mean(name, known)


def _each(artifact: str | None) -> str:
    return f"for_each {artifact!r}" if artifact else "once (no for_each)"


class _Checker:
    def __init__(self, harness: Harness):
        self.h = harness
        self.errors: list[Diagnostic] = []
        self.warnings: list[Diagnostic] = []
        self.agents = {a.name for a in harness.agents} | PSEUDO_AGENTS | harness.unloaded["agent"]
        self.sensors = {s.id for s in harness.sensors} | harness.unloaded["sensor"]
        self.scopes = {s.name for s in harness.scopes}
        self.by_slug: dict[str, Stage] = {}

    def err(self, stage: Stage, loc: tuple[str | int, ...], message: str) -> None:
        from aidlc_review.harness.breadcrumbs import key_path

        self.errors.append(
            Diagnostic(stage.origin.path, self.h.line(stage, loc), key_path(loc), message)
        )

    def run(self) -> None:
        for stage in self.h.stages:
            if stage.slug in self.by_slug:
                first = self.by_slug[stage.slug]
                self.err(
                    stage,
                    ("slug",),
                    f"duplicate slug {stage.slug!r} (also {self.h.where(first, ('slug',))})",
                )
                continue
            self.by_slug[stage.slug] = stage
        for stage in self.h.stages:
            self.check_references(stage)
        graph = StageGraph(self.h.stages)
        self.check_cycles(graph)
        self.check_producers()
        complete = not self.h.unloaded["stage"]  # content checks need every stage loaded
        for stage in self.by_slug.values():
            if complete:
                self.check_for_each(stage, graph)
            self.check_reviews(stage)
        self.check_single_reviewer()

    def check_references(self, stage: Stage) -> None:
        roles: list[tuple[tuple[str | int, ...], str | None]] = [
            (("lead_agent",), stage.lead_agent)
        ]
        roles += [(("support_agents", i), a) for i, a in enumerate(stage.support_agents)]
        roles += [(("reviewer",), stage.reviewer), (("repair_agent",), stage.repair_agent)]
        for loc, agent in roles:
            if agent is not None and agent not in self.agents:
                self.err(stage, loc, _unknown(agent, self.agents, "agent"))
        for i, sensor in enumerate(stage.sensors):
            if sensor not in self.sensors:
                self.err(stage, ("sensors", i), _unknown(sensor, self.sensors, "sensor"))
        slugs = {s.slug for s in self.h.stages} | self.h.unloaded["stage"]
        for i, required in enumerate(stage.requires_stage):
            if required not in slugs:
                self.err(stage, ("requires_stage", i), _unknown(required, slugs, "stage"))
        for i, scope in enumerate(stage.scopes):
            if scope not in self.scopes:
                message = (
                    f"no scope file scopes/aidlc-{scope}.md for scope {scope!r}"
                    + did_you_mean(scope, self.scopes)
                )
                self.warnings.append(
                    Diagnostic(
                        stage.origin.path,
                        self.h.line(stage, ("scopes", i)),
                        f"scopes[{i}]",
                        message,
                    )
                )

    def check_cycles(self, graph: StageGraph) -> None:
        for cycle in graph.cycles():
            stage = self.by_slug[cycle[0]]
            nxt = cycle[1] if len(cycle) > 1 else cycle[0]
            index = self.by_slug[nxt].requires_stage.index(cycle[0])
            path = " --> ".join([*cycle, cycle[0]])
            self.err(self.by_slug[nxt], ("requires_stage", index), f"requires_stage cycle: {path}")
            del stage

    def check_producers(self) -> None:
        consumed = {c.artifact for s in self.by_slug.values() for c in s.consumes}
        producer: dict[str, Stage] = {}
        for stage in self.by_slug.values():
            for i, artifact in enumerate(stage.produces):
                if artifact not in consumed:
                    continue
                if artifact in producer:
                    first = producer[artifact]
                    both = f"{first.slug} ({self.h.where(first)}) and {stage.slug}"
                    message = f"consumed artifact {artifact!r} has two producers: {both}"
                    self.err(stage, ("produces", i), message)
                else:
                    producer[artifact] = stage

    def check_for_each(self, stage: Stage, graph: StageGraph) -> None:
        if stage.for_each is None:
            return
        upstream = graph.ancestors(stage.slug)
        if not any(stage.for_each in self.by_slug[s].produces for s in upstream):
            self.err(
                stage,
                ("for_each",),
                f"artifact {stage.for_each!r} is not produced by any upstream stage",
            )

    def check_reviews(self, stage: Stage) -> None:
        target_slug = stage.reviews
        if target_slug is None:
            return
        target = self.by_slug.get(target_slug)
        if target is None and target_slug in self.h.unloaded["stage"]:
            return
        if target is None:
            self.err(stage, ("reviews",), _unknown(target_slug, self.by_slug, "stage"))
            return
        if not target.workspace_requires:
            self.err(
                stage,
                ("reviews",),
                f"reviewed stage {target_slug!r} must declare workspace_requires: true",
            )
        if target.for_each != stage.for_each:
            theirs, ours = _each(target.for_each), _each(stage.for_each)
            message = f"reviewed stage {target_slug!r} runs {theirs} but this stage runs {ours}"
            self.err(stage, ("reviews",), message)
        if target_slug not in stage.requires_stage:
            self.err(
                stage,
                ("reviews",),
                f"reviewed stage {target_slug!r} must be listed in requires_stage",
            )
        for i, scope in enumerate(stage.scopes):
            if scope not in target.scopes:
                where = f"where the reviewed stage {target_slug!r} does not"
                self.err(stage, ("scopes", i), f"executes in scope {scope!r} {where}")

    def check_single_reviewer(self) -> None:
        seen: dict[str, Stage] = {}
        for stage in self.by_slug.values():
            if stage.reviews is None:
                continue
            if stage.reviews in seen:
                other = seen[stage.reviews]
                by = f"{other.slug} ({self.h.where(other, ('reviews',))})"
                message = f"stage {stage.reviews!r} is already reviewed by {by}"
                self.err(stage, ("reviews",), message)
            else:
                seen[stage.reviews] = stage
            target = self.by_slug.get(stage.reviews)
            if target is not None and target.reviewer is not None:
                embedded = self.h.where(target, ("reviewer",))
                message = (
                    f"reviewed stage {stage.reviews!r} still has an embedded reviewer "
                    f"({embedded}); remove it so review is not done twice"
                )
                self.err(stage, ("reviews",), message)


def validate(harness: Harness, strict: bool = False) -> tuple[list[Diagnostic], list[Diagnostic]]:
    """Return (errors, warnings), each sorted. Loader diagnostics are errors too."""
    checker = _Checker(harness)
    checker.run()
    errors = list(harness.diagnostics) + checker.errors
    warnings = checker.warnings
    if strict:
        errors, warnings = errors + warnings, []
    return sorted(set(errors)), sorted(set(warnings))
