"""``tools/data/review-plan.json``: everything the review needs from a harness, compiled once.

``compile`` (a harness in this plugin's source form) and ``install`` (an upstream harness)
write it; the review reads only it and the workspace, never the stage definitions, so a
bad key in a stage it does not run cannot stop a review, and the review's code needs
neither the compiler nor the installer. Per reviewed stage: who reviews and who repairs,
the passes per construction mode, the sensor manifests as resolved (runner blocks
included) and the scopes it executes in. Installed, the plan also lists what install put
into upstream's files, so a run can tell that an upgrade took it out (``broken_parts``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from aidlc_review.errors import InvalidInput
from aidlc_review.harness.definitions.sensor import SensorManifest
from aidlc_review.typed_load import load_json

PLAN_FILE = "review-plan.json"
PLAN_PATH = f"tools/data/{PLAN_FILE}"
LEDGER_PATH = "tools/data/plugin-aidlc-review.json"
GRAPH_PATH = "tools/data/stage-graph.json"


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class ReviewedStage(_Frozen):
    slug: str
    reviews: str  # the stage whose output it reviews
    lead_agent: str  # the reviewer
    repair_agent: str
    max_passes: dict[str, int]  # construction mode -> passes (repairs = passes - 1)
    sensors: list[SensorManifest]
    scopes: list[str]

    def passes_for(self, mode: str) -> int | None:
        return self.max_passes.get(mode)


class Inserted(_Frozen):
    path: str  # harness-relative
    what: str  # as a person reads it: "the plugin's step at end-of-steps is"
    text: str


class InstalledParts(_Frozen):
    """What install put into an upstream harness, for telling whether it is still there."""

    added: list[str]
    inserted: list[Inserted]
    after: str  # the stage the reviewed stage must be numbered right after


class ReviewPlan(_Frozen):
    version: Literal[1] = 1
    stages: dict[str, ReviewedStage]
    installed: InstalledParts | None = None


def render_review_plan(plan: ReviewPlan) -> str:
    return json.dumps(plan.model_dump(mode="json", exclude_none=True), indent=2) + "\n"


def read_review_plan(harness: Path) -> ReviewPlan | None:
    """The harness's compiled review plan, or None when it has none."""
    path = harness / PLAN_PATH
    return load_json(ReviewPlan, path) if path.is_file() else None


def reviewed_stage(harness: Path, slug: str, remedy: str) -> ReviewedStage:
    """One stage of the plan, or a clear error saying how to produce the plan."""
    plan = read_review_plan(harness)
    if plan is None:
        raise InvalidInput(f"{harness / PLAN_PATH}: no review plan here; {remedy}")
    if slug not in plan.stages:
        raise InvalidInput(f"{harness / PLAN_PATH}: the plan has no {slug} stage; {remedy}")
    return plan.stages[slug]


def broken_parts(harness: Path, plan: ReviewPlan, slug: str) -> list[str]:
    """What install wrote that is no longer there, one line each (empty: intact)."""
    parts = plan.installed
    if parts is None:
        return []
    problems = [f"{p}: gone" for p in [*parts.added, LEDGER_PATH] if not (harness / p).is_file()]
    for ins in parts.inserted:
        path = harness / ins.path
        text = path.read_bytes().decode("utf-8", "replace") if path.is_file() else ""
        if ins.text not in text:
            problems.append(f"{ins.path}: {ins.what} gone")
    return problems + _graph_problems(harness, slug, parts.after)


def _graph_problems(harness: Path, slug: str, after: str) -> list[str]:
    """The compiled graph must hold the stage right after the one it reviews."""
    try:
        nodes = json.loads((harness / GRAPH_PATH).read_text(encoding="utf-8"))
        numbers = {n["slug"]: str(n["number"]) for n in nodes}
    except (OSError, ValueError, TypeError, KeyError):
        return [f"{GRAPH_PATH}: unreadable"]
    if slug not in numbers:
        return [f"{GRAPH_PATH}: has no {slug} stage"]
    later = sorted(
        (n for n in numbers.values() if _key(n) > _key(numbers.get(after, "0"))), key=_key
    )
    if not later or later[0] != numbers[slug]:
        return [f"{GRAPH_PATH}: {slug} is not numbered right after {after} any more"]
    return []


def _key(number: str) -> tuple[int, ...]:
    return tuple(int(part) for part in number.split(".") if part.isdigit())


def broken_message(harness: Path, problems: list[str]) -> str:
    shown = "; ".join(problems[:5])
    if len(problems) > 5:
        shown += f"; and {len(problems) - 5} more"
    return (
        f"{harness}: the code-review plugin's install is broken ({LEDGER_PATH} records it, "
        f"but {shown}), as after an upstream upgrade that replaced the harness. "
        f"Install again: aidlc-review install --harness {harness}"
    )


def refuse_broken(harness: Path, slug: str) -> None:
    plan = read_review_plan(harness)
    if plan is None:
        return
    problems = broken_parts(harness, plan, slug)
    if problems:
        raise InvalidInput(broken_message(harness, problems))
