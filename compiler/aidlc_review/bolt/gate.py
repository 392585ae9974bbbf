"""Settlement and the one aggregate gate: no reviewer runs here, only recorded outcomes.

``approve`` merges held (NOT-READY) units the person accepts and marks merged units
approved; ``request_changes`` reopens exactly one unit for a fresh review attempt, which
the next ``bolt run --resume`` carries out in that unit's worktree. A ``conflict`` unit
cannot be fixed by reviewing the same bytes again: its worktree is discarded and the unit
is generated anew on the target's head, then reviewed.

Nothing is approved while the guard (``bolt/guard.py``) finds the target moved or the hooks
changed: the run stops and the gate refuses (exit 1) until a person puts it right.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from aidlc_review.bolt import guard, merge
from aidlc_review.bolt.git import Git
from aidlc_review.bolt.pipeline import discard
from aidlc_review.bolt.state import (
    STAGE_LEVEL,
    GateChoice,
    GateDecision,
    RunPhase,
    RunState,
    StateStore,
)
from aidlc_review.errors import InvalidInput
from aidlc_review.review.record.audit import decider, utc_now
from aidlc_review.review.run.gate import decide_gate

REOPENABLE = ("held", "merged", "refused", "conflict", "reviewed")


def summary(state: RunState, alerts: list[str] | None = None) -> dict[str, Any]:
    """What the gate shows: every unit's status, verdict, passes used and open findings,
    why the run is stopped, and ``alerts``: what the guard finds wrong now."""
    units = [
        {
            "unit": u.name,
            "batch": u.batch + 1,
            "status": u.status,
            "verdict": u.verdict,
            "attempt": u.attempt,
            "passes_used": u.passes_used,
            "open_findings": u.open_findings,
            "problems": u.problems,
            "branch": u.branch,
            "merge_commit": u.merge_commit,
            "approved": u.approved,
        }
        for u in (state.ordered() or list(state.units.values()))
    ]
    return {
        "run": state.id8,
        "phase": state.phase,
        "target": state.target,
        "base": state.base,
        "target_head": state.target_head,
        "stopped": state.stopped,
        "alerts": alerts or [],
        "units": units,
        "decisions": [d.model_dump(mode="json") for d in state.gate],
    }


def render_summary(state: RunState, alerts: list[str] | None = None) -> str:
    shown = summary(state, alerts)
    lines = [f"bolt run {state.id8}: phase {state.phase}, target {state.target}"]
    lines.extend(f"  stopped: {reason}" for reason in shown["stopped"])
    lines.extend(f"  ! {alert}" for alert in shown["alerts"] if alert not in shown["stopped"])
    if shown["stopped"] and not shown["alerts"]:
        lines.append("  that looks put right now: 'bolt run --resume' checks again and goes on")
    for item in shown["units"]:
        verdict = item["verdict"] or "-"
        status = item["status"] + (", approved" if item["approved"] else "")
        lines.append(
            f"  {item['unit']}: {status} ({verdict}, {item['passes_used']} pass(es), "
            f"attempt {item['attempt']})"
        )
        for finding in item["open_findings"]:
            lines.append(
                f"      {finding.get('id', '?')} {finding.get('severity', '?')} "
                f"{finding.get('path', '?')}: {finding.get('finding', '')}"
            )
        lines.extend(f"      ! {problem}" for problem in item["problems"])
    return "\n".join(lines)


def _at_gate(state: RunState) -> None:
    hints = {
        "running": "; finish it with 'bolt run --resume'",
        "stopped": "; put right what stopped it ('bolt status' says), then 'bolt run --resume'",
    }
    if state.phase != "gate":
        raise InvalidInput(
            f"bolt run {state.id8} is not at its gate (phase {state.phase})"
            + hints.get(state.phase, "")
        )


def _chosen(state: RunState, unit: str | None) -> list[str]:
    if unit is None:
        return [u.name for u in state.ordered()] or list(state.units)
    if unit not in state.units:
        known = ", ".join(sorted(state.units))
        raise InvalidInput(f"--unit {unit!r}: not a unit of bolt run {state.id8} (units: {known})")
    return [unit]


def approve(
    store: StateStore, unit: str | None, progress: Callable[[str], None], by: str | None = None
) -> list[str]:
    """Approve units at the gate; returns the ones that still cannot be merged, with why.

    RunStopped (exit 1) while the target is not where Bolt left it or the hooks changed."""
    state = store.state
    who = decider(Path(state.workspace), by)
    guard.refuse_stopped(store)
    _at_gate(state)
    guard.require(store)
    remaining: list[str] = []
    for name in _chosen(state, unit):
        _unblock(store, name)
        current = state.units[name]
        if current.status in ("held", "merging"):
            merge.merge_unit(store, name, progress)
        current = state.units[name]
        if name == STAGE_LEVEL and current.status == "reviewed":
            _approve_stage_level(store, remaining, who)
        elif current.status == "merged":
            store.update(name, approved=True)
        else:
            remaining.append(
                f"{name}: {current.status}"
                + (f" ({current.problems[0]})" if current.problems else "")
            )
    state.gate.append(_decision(GateChoice.APPROVE, unit, who, remaining))
    if all(u.approved for u in state.units.values()):
        state.phase = RunPhase.DONE
        _remove_worktrees(store)
    store.save()
    return remaining


def _unblock(store: StateStore, name: str) -> None:
    """A blocked unit whose dependencies the gate has just merged can be built now."""
    current = store.state.units[name]
    if current.status == "blocked" and all(
        store.state.units[d].status == "merged" for d in current.depends_on
    ):
        store.update(name, problems=["its dependencies are merged; run 'bolt run --resume'"])


def _approve_stage_level(store: StateStore, remaining: list[str], by: str) -> None:
    """Zero units: the stage-level review is approved in the runtime's own record."""
    from aidlc_review.review.run.gate import GateRefused

    try:
        note = f"bolt {store.state.id8}"
        decide_gate(Path(store.state.workspace), None, "approve", note=note, by=by)
    except GateRefused as exc:
        remaining.append(f"{STAGE_LEVEL}: {exc}")
        return
    store.update(STAGE_LEVEL, approved=True)


def request_changes(store: StateStore, unit: str | None, by: str | None = None) -> None:
    state = store.state
    who = decider(Path(state.workspace), by)
    _at_gate(state)
    if unit is None:
        if STAGE_LEVEL not in state.units:
            raise InvalidInput("--request-changes needs --unit U (it reopens exactly one unit)")
        unit = STAGE_LEVEL
    name = _chosen(state, unit)[0]
    current = state.units[name]
    if current.status not in REOPENABLE:
        raise InvalidInput(
            f"--unit {name}: cannot request changes on a {current.status} unit "
            "(failed and blocked units are retried by 'bolt run --resume')"
        )
    if current.status == "conflict":
        discard(store, name, rebase=True)
        state.gate.append(_decision(GateChoice.REQUEST_CHANGES, name, who))
        store.update(name, approved=False)
        return
    workspace = Path(current.worktree or state.workspace)
    unit_name = None if name == STAGE_LEVEL else name
    # The runtime opens a fresh attempt (new pass budget, history kept) in the unit's record;
    # the next 'bolt run --resume' reviews it there.
    note = f"bolt {state.id8} aggregate gate"
    decide_gate(workspace, unit_name, "request-changes", note=note, by=who)
    state.gate.append(_decision(GateChoice.REQUEST_CHANGES, name, who))
    store.update(name, status="reopened", approved=False, problems=[])


def _remove_worktrees(store: StateStore) -> None:
    """After approval the branches keep the history; the worktrees are no longer needed."""
    git = Git(Path(store.state.workspace))
    for unit in store.state.units.values():
        if unit.worktree and Path(unit.worktree).exists():
            git.remove_worktree(Path(unit.worktree))
    target_place = store.run_dir / "target"
    if target_place.exists():
        git.remove_worktree(target_place)


def _decision(
    choice: GateChoice, unit: str | None, by: str, not_merged: list[str] | None = None
) -> GateDecision:
    return GateDecision(
        decision=choice, unit=unit, not_merged=not_merged or [], at=utc_now(), by=by
    )
