"""Squash-merging finalized units into the target branch, each exactly once.

Every squash commit carries ``Bolt-Run``, ``Bolt-Unit``, ``Bolt-Attempt`` and
``Bolt-Candidate`` (the finalized unit commit) trailers. Before merging, the target's
history is searched for the run, unit and candidate: a run killed after the commit but
before the state was written finds its merge there and records it instead of merging
twice, and a regenerated unit (a new candidate, whatever its attempt number) is never
mistaken for an earlier merge.

What lands is what was reviewed, byte for byte: a unit merges only while the target still
has its parent's version of every path the unit changed (no 3-way merge). Otherwise it is
marked ``conflict`` with those paths; ``bolt gate --request-changes --unit U`` regenerates
it on the target as it is then, for a fresh review.

A merge starts only on a clean checkout and records ``merging`` first; a run killed in the
middle of the squash is rolled back and merged again on resume.

Before anything else a merge asks the guard (``bolt/guard.py``): the target must be the
commit Bolt left it at and the hooks unchanged, else the run stops and nothing is merged.
Each merge records the commit it leaves the target at, with the unit's ``merged`` status.

Merges happen in the main workspace when it has the target branch checked out (its
tracked files must be clean), else in a worktree of the target owned by the run.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from aidlc_review.bolt import guard
from aidlc_review.bolt.git import Git
from aidlc_review.bolt.state import StateStore, UnitState
from aidlc_review.errors import InvalidInput

MESSAGE = """bolt({id8}): {unit}

Squash of {branch} (review {verdict} after {passes} pass(es), attempt {attempt}).

Bolt-Run: {run_id}
Bolt-Unit: {unit}
Bolt-Attempt: {attempt}
Bolt-Candidate: {candidate}
"""


def merge_batch(store: StateStore, batch: list[str], progress: Callable[[str], None]) -> None:
    """Merge the batch's finalized READY units in name order (and finish interrupted merges)."""
    for name in sorted(batch):
        if store.state.units[name].status in ("finalized", "merging"):
            merge_unit(store, name, progress)


def merge_unit(store: StateStore, name: str, progress: Callable[[str], None]) -> None:
    state = store.state
    unit = state.units[name]
    assert unit.commit and unit.branch and unit.base
    head = guard.require(store)
    git = merging_git(store)
    trailers = {"Bolt-Run": state.run_id, "Bolt-Unit": name, "Bolt-Candidate": unit.commit}
    done = git.count_trailer_commits(state.target, trailers)
    if done:
        progress(f"[{name}] already merged as {done[0][:8]}")
        store.record_merge(
            name, head, status="merged", merge_commit=done[0], landed=unit.commit, problems=[]
        )
        return
    if unit.status == "merging":
        _undo_partial_merge(git, unit, progress)
    parent = unit.landed or unit.base
    paths = git.changed_paths(parent, unit.commit)
    _refuse_blocked_checkout(git, name, paths)
    moved = sorted(set(paths) & set(git.changed_paths(parent, "HEAD")))
    if moved:
        progress(f"[{name}] {state.target} has changed {', '.join(moved)}; not merged")
        store.update(name, status="conflict", problems=[_conflict(state.target, name, moved)])
        return
    store.update(name, status="merging", target_before=head)
    commit = git.squash_merge(parent, unit.commit, _message(store, unit))
    progress(f"[{name}] merged into {state.target} as {commit[:8]}")
    store.record_merge(
        name, commit, status="merged", merge_commit=commit, landed=unit.commit, problems=[]
    )


def _conflict(target: str, name: str, paths: list[str]) -> str:
    return (
        f"not merged: {target} has changed {', '.join(paths)} since this unit's base, so its "
        f"reviewed bytes cannot land as reviewed; 'bolt gate --request-changes --unit {name}' "
        f"regenerates it on the current {target}"
    )


def _refuse_blocked_checkout(git: Git, name: str, paths: list[str]) -> None:
    """Uncommitted tracked changes, or untracked files where the unit writes, are the
    person's work: the merge never overwrites them."""
    dirty = git.tracked_changes()
    if dirty:
        raise InvalidInput(
            f"{git.cwd}: uncommitted changes to tracked files block the merge of {name}: "
            f"{', '.join(dirty)}; commit or stash them, then run 'bolt run --resume'"
        )
    tracked = git.modes("HEAD", paths)
    in_the_way = [p for p in paths if p not in tracked and os.path.lexists(git.cwd / p)]
    if in_the_way:
        raise InvalidInput(
            f"{git.cwd}: untracked files block the merge of {name}: "
            f"{', '.join(in_the_way)}; move them away, then run 'bolt run --resume'"
        )


def _undo_partial_merge(git: Git, unit: UnitState, progress: Callable[[str], None]) -> None:
    """A run killed inside the squash (between checkout and commit) leaves it half-applied.

    The merge only starts on a clean checkout, so what is there now is ours to roll back:
    reset the tracked files and remove what the merge had written of the unit's own paths."""
    assert unit.commit and unit.base
    progress(f"[{unit.name}] rolling back an interrupted merge")
    git_dir = Path(git.run("rev-parse", "--path-format=absolute", "--git-dir").strip())
    (git_dir / "index.lock").unlink(missing_ok=True)  # the killed git's; we hold the run lock
    git.run("reset", "--quiet", "--hard", "HEAD")
    paths = git.changed_paths(unit.landed or unit.base, unit.commit)
    if paths:
        git.run("clean", "--quiet", "--force", "--", *paths)


def _message(store: StateStore, unit: UnitState) -> str:
    state = store.state
    return MESSAGE.format(
        id8=state.id8,
        unit=unit.name,
        branch=unit.branch,
        verdict=unit.verdict,
        passes=unit.passes_used,
        attempt=unit.attempt,
        candidate=unit.commit,
        run_id=state.run_id,
    )


def merging_git(store: StateStore) -> Git:
    """Where squash commits are made: the main workspace if it is on the target branch."""
    state = store.state
    main = Git(Path(state.workspace))
    if main.current_branch() == state.target:
        return main
    place = store.run_dir / "target"
    if not (place / ".git").exists():
        with main.lock:
            main.run("worktree", "prune")
            main.run("worktree", "add", "--quiet", "--", str(place), state.target)
    return Git(place)


def count_merges(git: Git, target: str, run_id: str, unit: str) -> int:
    """How many squash commits of ``unit`` the run left on ``target`` (tests, status)."""
    return len(git.count_trailer_commits(target, {"Bolt-Run": run_id, "Bolt-Unit": unit}))
