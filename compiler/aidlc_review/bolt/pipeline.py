"""The autonomous Bolt: per unit generate -> review (3 passes) -> finalize, merge in batch order.

Units of one batch run in parallel threads, each in its own worktree on branch
``bolt-<id8>_<unit>`` off the batch base (the run's base revision for the first batch,
the target branch head for later ones, so a unit sees what it depends on). Merges
happen after the whole batch is finalized, one squash commit per unit, in name order.

The merge rule: a unit is merged without a person only when its review converged READY.
A NOT-READY unit is *held*: finalized and kept on its branch, not merged until the
aggregate gate approves it; units depending on a held (or failed) unit are *blocked*.

Every drive, batch and merge first asks the guard (``bolt/guard.py``) whether the target
is where Bolt left it and the hooks are unchanged; if not, the run stops there.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from itertools import repeat
from pathlib import Path

from aidlc_review.bolt import finalize, guard, merge, review_step
from aidlc_review.bolt.git import Git
from aidlc_review.bolt.state import (
    STAGE_LEVEL,
    RunState,
    StateStore,
    UnitState,
    bolt_root,
    create_store,
)
from aidlc_review.bolt.units import UnitPlan
from aidlc_review.errors import AidlcError, InvalidInput, UsageError

Progress = Callable[[str], None]
MAX_SHOWN = 20  # paths named in a refusal


@dataclass(frozen=True)
class RunOptions:
    workspace: Path
    developer: str
    reviewer: str = "builtin"
    repairer: str | None = None  # default: the developer repairs its own unit
    base: str | None = None
    target: str | None = None
    agent_timeout: float = 600.0
    harness: Path | None = None


def start_run(options: RunOptions, plan: UnitPlan, units_file: Path | None) -> StateStore:
    """Record a new run (nothing executed yet); refuses while an unfinished run exists."""
    git = Git(options.workspace.resolve())
    root = bolt_root(git.common_dir())
    _refuse_unfinished(root)
    review_step.check_agents(
        options.developer, options.reviewer, options.repairer or options.developer
    )
    target = options.target or git.current_branch()
    if target is None:
        raise InvalidInput(
            f"{options.workspace}: HEAD is detached; name the target branch with --target"
        )
    if target.startswith("-") or not git.succeeds("check-ref-format", f"refs/heads/{target}"):
        raise UsageError(f"--target {target!r}: not a valid git branch name")
    if options.base and not git.succeeds(
        "rev-parse", "--verify", "-q", f"{options.base}^{{commit}}"
    ):
        raise UsageError(f"--base {options.base!r}: unknown revision")
    _refuse_dirty(git, target)
    base = git.rev_parse(options.base or (target if git.branch_exists(target) else "HEAD"))
    if not git.branch_exists(target):
        git.run("branch", "--", target, base)
    hooks, hook_config = guard.snapshot(git)
    state = RunState(
        run_id=uuid.uuid4().hex,
        workspace=str(git.cwd),
        base=base,
        target=target,
        units_file=str(units_file) if units_file else None,
        developer=options.developer,
        reviewer=options.reviewer,
        repairer=options.repairer or options.developer,
        agent_timeout=options.agent_timeout,
        harness=str(options.harness.resolve()) if options.harness else None,
        batches=[list(b) for b in plan.batches],
        units=_unit_states(plan),
        target_head=git.rev_parse(f"refs/heads/{target}"),
        hooks=hooks,
        hook_config=hook_config,
    )
    return create_store(root, state)


def _refuse_dirty(git: Git, target: str) -> None:
    """The main worktree must be clean before a run starts: a change left there would be
    merged around, generated over, or found only at merge time. Bolt's own state lives
    under ``.git`` and never shows here."""
    dirty = git.uncommitted_paths()
    if not dirty:
        return
    shown = ", ".join(dirty[:MAX_SHOWN]) + (
        f" and {len(dirty) - MAX_SHOWN} more" if len(dirty) > MAX_SHOWN else ""
    )
    raise InvalidInput(
        f"{git.cwd}: the main worktree has uncommitted or untracked changes: {shown}; "
        f"commit, stash or remove them before 'bolt run' (target {target})"
    )


def _unit_states(plan: UnitPlan) -> dict[str, UnitState]:
    if not plan.units:
        return {STAGE_LEVEL: UnitState(name=STAGE_LEVEL, depends_on=[], batch=0)}
    level = {name: k for k, batch in enumerate(plan.batches) for name in batch}
    return {
        u.name: UnitState(name=u.name, depends_on=list(u.depends_on), batch=level[u.name])
        for u in plan.units
    }


def _refuse_unfinished(root: Path) -> None:
    from aidlc_review.bolt.state import open_store

    if not (root / "current").is_file():
        return
    state = open_store(root).state
    if state.phase not in ("done", "abandoned"):
        raise InvalidInput(
            f"bolt run {state.id8} in {state.workspace} is not finished (phase {state.phase}); "
            "continue it with 'bolt run --resume' or decide its gate with 'bolt gate'"
        )


def drive(store: StateStore, jobs: int, progress: Progress) -> RunState:
    """Run every unfinished unit to the gate; safe to call again after a crash.

    Returns with phase ``stopped`` (said through ``progress``) when the guard stops it."""
    state = store.state
    if state.phase == "done":
        raise InvalidInput(f"bolt run {state.id8} is already done (its gate was approved)")
    if state.phase == "abandoned":
        raise InvalidInput(f"bolt run {state.id8} was abandoned; start a new one with 'bolt run'")
    if state.phase == "stopped":
        progress(f"bolt run {state.id8} was stopped; checking again")
    try:
        guard.require(store)  # a resumed run never adopts a target someone else moved
        store.set_phase("running")
        _drive_batches(store, jobs, progress)
    except guard.RunStopped as exc:
        progress(str(exc))
        return state
    store.set_phase("gate")
    return state


def _drive_batches(store: StateStore, jobs: int, progress: Progress) -> None:
    state = store.state
    if STAGE_LEVEL in state.units:
        review_step.run_stage_level(store, progress)
    for number, batch in enumerate(state.batches):
        head = guard.require(store)
        # later batches start where Bolt's own merges left the target, and nowhere else
        base = state.base if number == 0 else head
        runnable = [name for name in batch if _ready(store, name, progress)]
        if runnable:
            progress(f"batch {number + 1}/{len(state.batches)}: {', '.join(runnable)}")
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            list(pool.map(_run_unit, repeat(store), runnable, repeat(base), repeat(progress)))
        merge.merge_batch(store, batch, progress)


def abandon(store: StateStore) -> None:
    """Give up on a run that cannot finish so a new one may start; its state and unit
    worktrees stay for inspection. Only the target worktree the run merged in goes: git
    lets one branch be checked out in one worktree, and a new run may need that branch."""
    state = store.state
    if state.phase in ("done", "abandoned"):
        word = "done" if state.phase == "done" else "already abandoned"
        raise InvalidInput(f"bolt run {state.id8} is {word}")
    target_place = store.run_dir / "target"
    if target_place.exists():
        Git(Path(state.workspace)).remove_worktree(target_place)
    store.set_phase("abandoned")


def _ready(store: StateStore, name: str, progress: Progress) -> bool:
    """Whether the unit has work left now; marks it blocked while a dependency is unmerged."""
    unit = store.state.units[name]
    if unit.status == "reviewing":
        # The developer's work is in the worktree; the runtime picks its review up again.
        progress(f"[{name}] resuming its review")
        store.update(name, status="generated")
    elif unit.status in ("generating", "failed"):
        progress(f"[{name}] restarting (was {unit.status})")
        discard(store, name)
    if unit.status not in ("pending", "blocked", "generated", "reopened", "reviewed"):
        return False
    waiting = [d for d in unit.depends_on if store.state.units[d].status != "merged"]
    if waiting:
        if unit.status != "blocked":
            progress(f"[{name}] blocked: waiting for {', '.join(waiting)}")
        store.update(
            name,
            status="blocked",
            problems=[f"waiting for {d} ({store.state.units[d].status})" for d in waiting],
        )
        return False
    if unit.status == "blocked":
        store.update(name, status="pending", problems=[])
    return True


def discard(store: StateStore, name: str, rebase: bool = False) -> None:
    """Throw away an unfinished attempt so the unit starts again from a clean worktree.

    A unit that has landed before starts on the target's head: its batch base lacks its own
    earlier merge, so the new candidate could not land on the target as reviewed."""
    unit = store.state.units[name]
    if unit.worktree:
        Git(Path(store.state.workspace)).remove_worktree(Path(unit.worktree), unit.branch)
    store.update(
        unit.name,
        status="pending",
        worktree=None,
        branch=None,
        base=None,
        commit=None,
        problems=[],
        verdict=None,
        passes_used=0,
        open_findings=[],
        rebase=rebase or unit.rebase or unit.landed is not None,
    )


def _run_unit(store: StateStore, name: str, base: str, progress: Progress) -> None:
    def say(message: str) -> None:
        progress(f"[{name}] {message}")

    try:
        unit = store.state.units[name]
        if unit.status == "pending":
            _generate(store, name, base, say)
        if store.state.units[name].status in ("generated", "reopened"):
            review_step.review_unit(store, name, say)
        if store.state.units[name].status == "reviewed":
            _finalize(store, name, say)
    except AidlcError as exc:
        say(f"failed: {exc}")
        store.update(name, status="failed", problems=[str(exc)])


def _generate(store: StateStore, name: str, base: str, say: Callable[[str], None]) -> None:
    state = store.state
    worktree = store.run_dir / "worktrees" / name
    branch = f"bolt-{state.id8}_{name}"
    git = Git(Path(state.workspace))
    if state.units[name].rebase:
        base = state.target_head  # the guard checked it at the start of this batch
    git.remove_worktree(worktree, branch)  # leftovers of an attempt killed before it was recorded
    # The new base has whatever of the unit landed before, so its candidate's parent is the
    # base again (``landed`` cleared).
    store.update(
        name,
        status="generating",
        worktree=str(worktree),
        branch=branch,
        base=base,
        landed=None,
        rebase=False,
        problems=[],
    )
    say(f"worktree {branch} at {base[:8]}")
    git.add_worktree(worktree, branch, base)
    say("generating")
    failure = review_step.run_developer(store, name, worktree)
    if failure:
        raise InvalidInput(f"unit {name}: {failure}")
    store.update(name, status="generated")


def _finalize(store: StateStore, name: str, say: Callable[[str], None]) -> None:
    unit = store.state.units[name]
    assert unit.worktree and unit.branch and unit.base
    git = Git(Path(unit.worktree))
    candidate = finalize.check_candidate(git, name, unit.base)
    if not candidate.ok:
        say(f"finalize refused: {'; '.join(candidate.problems)} (worktree kept at {unit.worktree})")
        store.update(
            name,
            status="refused",
            problems=[f"finalize refused unit {name}: {p}" for p in candidate.problems],
        )
        return
    head = git.rev_parse(unit.branch)
    message = f"bolt({store.state.id8}): {name} candidate (attempt {unit.attempt})"
    # Parent = what of the unit already landed, so a reopened unit merges only its delta.
    commit = git.commit_tree(candidate.tree, unit.landed or unit.base, message)
    git.move_branch(unit.branch, commit, head)
    status = "finalized" if candidate.verdict == "READY" else "held"
    say(
        f"finalized {commit[:8]} ({candidate.verdict})"
        + ("; held for the gate" if status == "held" else "")
    )
    store.update(name, status=status, commit=commit, problems=[])
