"""The agent-facing steps of a unit: the developer (generation) and the review loop.

Both go through the review runtime: its ``command:`` adapter runs the developer, and
``run_review`` runs the autonomous pass budget (review -> repair -> re-review) in the
unit's worktree. Nothing here merges; the outcome is recorded for finalize and the gate.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from aidlc_review.bolt.state import STAGE_LEVEL, StateStore
from aidlc_review.errors import InvalidInput
from aidlc_review.fsio import write_atomic

RECORD_DIR = "aidlc-docs"
MODE = "autonomous"

BRIEF = """# Developer brief: {label}

You are the developer agent of an autonomous Bolt run ({run}).
Workspace: `{workspace}` (work only inside it{branch_note}).

1. Write the code and tests of {label}.
2. Write its source manifest at `{manifest}` claiming every path you wrote:
   `{{"stage": "code-generation", {unit_key}"version": 1, "writes": [{{"path": "src/..."}}]}}`
   (a path ending in `/` claims a directory).

{deps}Do not commit; the pipeline reviews your work in this worktree and merges it.
"""


def check_agents(developer: str, reviewer: str, repairer: str) -> None:
    from aidlc_review.review.agents.adapters import parse_agent

    parse_agent(developer, "--developer", ())
    parse_agent(reviewer, "--reviewer", ("builtin",))
    parse_agent(repairer, "--repairer", ("none",))


def manifest_path(workspace: Path, unit: str | None) -> Path:
    construction = workspace / RECORD_DIR / "construction"
    return (
        (construction / unit if unit else construction) / "code-generation" / "source-manifest.json"
    )


def run_developer(store: StateStore, name: str, workspace: Path) -> str | None:
    """Run the developer agent in ``workspace``; the reason it failed, or None."""
    from aidlc_review.review.agents.adapters import agent_env, parse_agent, run_command_agent

    state = store.state
    unit = None if name == STAGE_LEVEL else name
    manifest = manifest_path(workspace, unit)
    text = _brief(store, unit, workspace, manifest)
    brief = (
        store.run_dir
        / "briefs"
        / f"{unit or 'stage'}-attempt{state.units[name].attempt}-developer.md"
    )
    write_atomic(brief, text)
    env = agent_env(
        "developer",
        unit=unit,
        workspace=workspace,
        record=workspace / RECORD_DIR,
        brief=brief,
        number=0,
    )
    spec = parse_agent(state.developer, "--developer", ())
    run = run_command_agent(spec, cwd=workspace, brief=text, env=env, timeout=state.agent_timeout)
    if run.failure:
        return f"developer agent: {run.failure}"
    if not manifest.is_file():
        shown = manifest.relative_to(workspace).as_posix()
        return f"the developer wrote no source manifest at {shown}"
    return None


def _brief(store: StateStore, unit: str | None, workspace: Path, manifest: Path) -> str:
    state = store.state
    deps = state.units[unit].depends_on if unit else []
    return BRIEF.format(
        label=f"unit `{unit}`" if unit else "this stage (no units)",
        run=state.id8,
        workspace=workspace,
        branch_note=f", a git worktree on branch bolt-{state.id8}_{unit}" if unit else "",
        manifest=manifest.relative_to(workspace).as_posix(),
        unit_key=f'"unit": "{unit}", ' if unit else "",
        deps=f"Already merged into this worktree's base: {', '.join(deps)}.\n\n" if deps else "",
    )


def review_unit(store: StateStore, name: str, say: Callable[[str], None]) -> None:
    """Run the autonomous review loop for one unit (or the stage) and record its outcome."""
    from aidlc_review.review.run.api import ReviewRequest, run_review

    state = store.state
    unit_state = state.units[name]
    unit = None if name == STAGE_LEVEL else name
    workspace = Path(unit_state.worktree or state.workspace)
    store.update(name, status="reviewing")
    say("reviewing")
    request = ReviewRequest(
        workspace=workspace,
        unit=unit,
        mode=MODE,
        reviewer=state.reviewer,
        repairer=state.repairer,
        agent_timeout=state.agent_timeout,
        harness=Path(state.harness) if state.harness else None,
        # unclaimed changes are measured from the unit's branch point, so a commit the
        # developer made on the unit branch outside its claims still counts
        base_revision=unit_state.base,
    )
    outcome = run_review(request, progress=say)
    say(f"review {outcome.verdict} after {outcome.passes_used} pass(es)")
    store.update(
        name,
        status="reviewed",
        verdict=outcome.verdict,
        passes_used=outcome.passes_used,
        attempt=outcome.attempt,
        open_findings=list(outcome.open_findings),
    )


def run_stage_level(store: StateStore, progress: Callable[[str], None]) -> None:
    """Zero units: generate and review once at stage level in the main workspace (no merge)."""

    def say(message: str) -> None:
        progress(f"[{STAGE_LEVEL}] {message}")

    workspace = Path(store.state.workspace)
    unit = store.state.units[STAGE_LEVEL]
    if unit.status in ("pending", "generating", "failed"):
        store.update(STAGE_LEVEL, status="generating", problems=[])
        say("generating")
        failure = run_developer(store, STAGE_LEVEL, workspace)
        if failure:
            say(f"failed: {failure}")
            store.update(STAGE_LEVEL, status="failed", problems=[failure])
            return
        store.update(STAGE_LEVEL, status="generated")
    if store.state.units[STAGE_LEVEL].status in ("generated", "reviewing", "reopened"):
        try:
            review_unit(store, STAGE_LEVEL, say)
        except InvalidInput as exc:
            store.update(STAGE_LEVEL, status="failed", problems=[str(exc)])
