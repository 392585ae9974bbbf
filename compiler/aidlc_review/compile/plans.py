"""Execution plans: per scope and construction mode, what runs and which gates it shows.

``scope_plans_doc`` renders ``tools/data/scope-plans.json``; ``resolve_plan``
is the one-plan query behind ``aidlc-review plan`` and ``scope show``.
Deterministic: scopes sorted, stages in display-number order, modes in
``CONSTRUCTION_MODES`` order.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from aidlc_review.compile.gates import PER_STAGE, PER_UNIT, Gate, resolve_gates
from aidlc_review.compile.graph import StageGraph
from aidlc_review.harness.definitions.dialect import BLOCKING, PLUGIN_LADDER, SOURCE, Dialect
from aidlc_review.harness.definitions.scope import Scope
from aidlc_review.harness.definitions.stage import CONSTRUCTION_MODES, Stage

PLANS_VERSION = 1


@dataclass(frozen=True)
class PlannedStage:
    stage: Stage
    number: str
    repair_agent: str | None
    max_passes: int | None
    review_class: str | None
    gates: tuple[Gate, ...]

    @property
    def slug(self) -> str:
        return self.stage.slug

    def to_json(self) -> dict[str, Any]:
        return {
            "slug": self.slug,
            "number": self.number,
            "lead_agent": self.stage.lead_agent,
            "reviewer": self.stage.reviewer,
            "reviews": self.stage.reviews,
            "repair_agent": self.repair_agent,
            "max_passes": self.max_passes,
            "review_class": self.review_class,
            "gates": [gate.to_json() for gate in self.gates],
        }


@dataclass(frozen=True)
class ScopePlan:
    scope: str
    mode: str
    review_cap: str | None
    stages: tuple[PlannedStage, ...]

    def stage(self, slug: str) -> PlannedStage | None:
        return next((s for s in self.stages if s.slug == slug), None)

    def gate_counts(self) -> dict[str, int]:
        """Active gates a run of this plan presents, per unit and once per stage."""
        active = [gate for planned in self.stages for gate in planned.gates if gate.active]
        return {
            "per_unit": sum(1 for gate in active if gate.per == PER_UNIT),
            "per_stage": sum(1 for gate in active if gate.per == PER_STAGE),
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "scope": self.scope,
            "mode": self.mode,
            "review_cap": self.review_cap,
            "stages": [planned.to_json() for planned in self.stages],
            "gate_counts": self.gate_counts(),
        }


def effective_review_class(
    stage: Stage, review_cap: str | None, dialect: Dialect = SOURCE
) -> str | None:
    """The class a stage's review loop has in a scope, in the plugin's words (``blocking``,
    ``advisory``; None: no review), whatever words the harness's engine uses for them.

    A cap lowers embedded reviewers only (an engine's ``none`` silences them); a review
    stage (``reviews``) was selected by ``scopes:`` and keeps its full strength.
    """
    if stage.reviews is not None:
        return BLOCKING
    if stage.reviewer is None:
        return None
    rung = dialect.rung(stage.review_class or dialect.strongest_class)
    if review_cap is not None:
        rung = min(rung, dialect.rung(review_cap))
    return PLUGIN_LADDER[rung] if rung else None


def resolve_plan(
    graph: StageGraph,
    scope: str,
    mode: str,
    review_cap: str | None = None,
    dialect: Dialect = SOURCE,
) -> ScopePlan:
    if mode not in CONSTRUCTION_MODES:
        raise ValueError(f"unknown construction mode {mode!r}")
    numbers = graph.numbers()
    planned = [
        PlannedStage(
            stage=stage,
            number=numbers[stage.slug],
            repair_agent=stage.resolved_repair_agent,
            max_passes=stage.passes_for(mode),
            review_class=effective_review_class(stage, review_cap, dialect),
            gates=tuple(resolve_gates(graph, stage, scope, mode)),
        )
        for stage in graph.scope_stages(scope)
    ]
    return ScopePlan(scope, mode, review_cap, tuple(planned))


def known_scopes(graph: StageGraph, scopes: Iterable[Scope]) -> dict[str, str | None]:
    """Every scope with a file or named by a stage, sorted, mapped to its review cap."""
    caps: dict[str, str | None] = {s.name: s.review_cap for s in scopes}
    for stage in graph.ordered():
        for name in stage.scopes:
            caps.setdefault(name, None)
    return {name: caps[name] for name in sorted(caps)}


def scope_plans_doc(
    graph: StageGraph, scopes: list[Scope], dialect: Dialect = SOURCE
) -> dict[str, Any]:
    """The content of ``scope-plans.json``: every scope x construction mode."""
    plans: dict[str, Any] = {}
    for name, cap in known_scopes(graph, scopes).items():
        plans[name] = {
            mode: resolve_plan(graph, name, mode, cap, dialect).to_json()
            for mode in CONSTRUCTION_MODES
        }
    return {"version": PLANS_VERSION, "modes": list(CONSTRUCTION_MODES), "scopes": plans}


def _gate_label(gate: Gate) -> str:
    label = f"{gate.kind}/{gate.per}"
    if not gate.active:
        label += f" suppressed -> {gate.replaced_by}"
    return label


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]


def render_plan(plan: ScopePlan) -> str:
    """A readable table of one plan (the human form of ``plan``)."""
    rows = [["#", "stage", "repair agent", "passes", "class", "gates"]]
    for s in plan.stages:
        rows.append(
            [
                s.number,
                s.slug,
                s.repair_agent or "-",
                "-" if s.max_passes is None else str(s.max_passes),
                s.review_class or "-",
                ", ".join(_gate_label(g) for g in s.gates),
            ]
        )
    counts = plan.gate_counts()
    head = f"scope {plan.scope}, {plan.mode} construction (review cap: {plan.review_cap or 'none'})"
    tail = f"active gates: {counts['per_unit']} per unit, {counts['per_stage']} per stage"
    return "\n".join([head, *_table(rows), tail]) + "\n"


def render_overview(plans: dict[str, dict[str, ScopePlan]], review_stages: list[str]) -> str:
    """One line per scope: how many stages run, which review stages, the gate counts per mode."""
    rows = [
        ["scope", "cap", "stages", "review stages", "gated (unit/stage)", "autonomous (unit/stage)"]
    ]
    for name, by_mode in plans.items():
        gated, autonomous = by_mode["gated"], by_mode["autonomous"]
        reviews = [slug for slug in review_stages if gated.stage(slug) is not None]
        rows.append(
            [
                name,
                gated.review_cap or "-",
                str(len(gated.stages)),
                ", ".join(reviews) or "-",
                "{per_unit}/{per_stage}".format(**gated.gate_counts()),
                "{per_unit}/{per_stage}".format(**autonomous.gate_counts()),
            ]
        )
    return "\n".join(_table(rows)) + "\n"
