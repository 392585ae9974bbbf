"""Squash-merging finalized units into the target branch, each exactly once.

Every squash commit carries ``Bolt-Run``, ``Bolt-Unit`` and ``Bolt-Attempt`` trailers.
Before merging, the target's history is searched for them: a run killed after the commit
but before the state was written finds its merge there and records it instead of
merging twice.

A merge starts only on a clean checkout and records ``merging`` first; a run killed in the
middle of the squash is rolled back and merged again on resume.

Merges happen in the main workspace when it has the target branch checked out (its
tracked files must be clean), else in a worktree of the target owned by the run.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from aidlc_review.bolt.git import Git
from aidlc_review.bolt.state import StateStore, UnitState
from aidlc_review.errors import InvalidInput

MESSAGE = """bolt({id8}): {unit}

Squash of {branch} (review {verdict} after {passes} pass(es), attempt {attempt}).

Bolt-Run: {run_id}
Bolt-Unit: {unit}
Bolt-Attempt: {attempt}
"""


def merge_batch(store: StateStore, batch: list[str], progress: Callable[[str], None]) -> None:
    """Merge the batch's finalized READY units in name order (and finish interrupted merges)."""
    for name in sorted(batch):
        if store.state.units[name].status in ("finalized", "merging"):
            merge_unit(store, name, progress)


def merge_unit(store: StateStore, name: str, progress: Callable[[str], None]) -> None:
    state = store.state
    unit = state.units[name]
    assert unit.commit and unit.branch
    git = merging_git(store)
    trailers = {"Bolt-Run": state.run_id, "Bolt-Unit": name, "Bolt-Attempt": str(unit.attempt)}
    done = git.count_trailer_commits(state.target, trailers)
    if done:
        progress(f"[{name}] already merged as {done[0][:8]}")
        store.update(name, status="merged", merge_commit=done[0], landed=unit.commit, problems=[])
        return
    if unit.status == "merging":
        _undo_partial_merge(git, unit, progress)
    dirty = git.tracked_changes()
    if dirty:
        raise InvalidInput(
            f"{git.cwd}: uncommitted changes to tracked files block the merge of {name}: "
            f"{', '.join(dirty)}; commit or stash them, then run 'bolt run --resume'"
        )
    store.update(name, status="merging")
    result = git.squash_merge(unit.commit, _message(store, unit))
    if not result.ok:
        progress(f"[{name}] merge conflict; not merged")
        store.update(
            name,
            status="conflict",
            problems=[f"squash merge into {state.target} failed: {result.message}"],
        )
        return
    progress(
        f"[{name}] merged into {state.target} as {result.commit[:8] if result.commit else '?'}"
    )
    store.update(name, status="merged", merge_commit=result.commit, landed=unit.commit, problems=[])


def _undo_partial_merge(git: Git, unit: UnitState, progress: Callable[[str], None]) -> None:
    """A run killed inside the squash (``git cherry-pick --no-commit``) leaves it half-applied.

    The merge only starts on a clean checkout, so what is there now is ours to roll back:
    reset the tracked files and remove what the merge had written of the unit's own paths."""
    assert unit.commit and unit.base
    progress(f"[{unit.name}] rolling back an interrupted merge")
    git_dir = Path(git.run("rev-parse", "--path-format=absolute", "--git-dir").strip())
    (git_dir / "index.lock").unlink(missing_ok=True)  # the killed git's; we hold the run lock
    git.attempt("cherry-pick", "--quit")
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
