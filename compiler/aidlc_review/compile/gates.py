"""Gate resolution for one stage in one scope and construction mode (DESIGN §3.5).

Everything is decided here, at compile time, from the stage definitions and
the scope: a runtime never asks "is code-review in this scope?".

Who counts a gate ("per"):
- a stage with ``for_each`` has one gate per unit; a stage without it has one
  gate per stage (once per run), in both modes;
- in autonomous mode the source-writing stages (``workspace_requires: true``)
  and their review stages run unattended in the Bolt pipeline, so their
  completion/review gate is one aggregate gate per stage;
- plan approval is a human decision before any source is written: it stays
  per unit in both modes and is never suppressed.
"""

from __future__ import annotations

from dataclasses import dataclass

from aidlc_review.compile.graph import StageGraph
from aidlc_review.harness.definitions.stage import Stage

PLAN_APPROVAL = "plan-approval"
COMPLETION = "completion"
REVIEW = "review"
PER_UNIT = "unit"
PER_STAGE = "stage"
ACTIVE = "active"
SUPPRESSED = "suppressed"


@dataclass(frozen=True)
class Gate:
    kind: str
    per: str
    status: str = ACTIVE
    replaced_by: str | None = None

    @property
    def active(self) -> bool:
        return self.status == ACTIVE

    def to_json(self) -> dict[str, str | None]:
        return {
            "kind": self.kind,
            "per": self.per,
            "status": self.status,
            "replaced_by": self.replaced_by,
        }


def _decision_per(stage: Stage, mode: str) -> str:
    """Who counts a completion or review gate of ``stage`` in ``mode``."""
    if stage.for_each is None:
        return PER_STAGE
    if mode == "autonomous" and stage.workspace_requires:
        return PER_STAGE
    return PER_UNIT


def _replacing_stage(graph: StageGraph, stage: Stage, scope: str) -> str | None:
    """The review stage that takes over ``stage``'s completion gate in ``scope``, if any."""
    reviewer = graph.reviewer_of(stage.slug)
    if reviewer is not None and graph.executes(reviewer.slug, scope):
        return reviewer.slug
    return None


def resolve_gates(graph: StageGraph, stage: Stage, scope: str, mode: str) -> list[Gate]:
    """The gates ``stage`` presents when it runs in ``scope`` under ``mode``, in order."""
    gates: list[Gate] = []
    if stage.plan_approval == "required":
        gates.append(Gate(PLAN_APPROVAL, PER_UNIT if stage.for_each else PER_STAGE))
    per = _decision_per(stage, mode)
    if stage.reviews is not None:
        gates.append(Gate(REVIEW, per))
        return gates
    replaced_by = _replacing_stage(graph, stage, scope)
    if replaced_by is None:
        gates.append(Gate(COMPLETION, per))
    else:
        gates.append(Gate(COMPLETION, per, SUPPRESSED, replaced_by))
    return gates
