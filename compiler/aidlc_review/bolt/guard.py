"""The target and hook guard: before every merge and at the gate, the target branch is
exactly where Bolt left it and the repository's hooks are what they were.

Developer agents run git in worktrees of the target repository, so they can commit onto
the target branch, move it with ``git update-ref``, or plant a hook under ``.git/`` that
runs on a person's next commit. So Bolt records the target's commit when the run starts
and after each of its own merges (``RunState.target_head``), and the common git dir's
``hooks/`` (names and content hashes) with the hook-related config when the run starts.
On every resume, at the start of every batch, before every merge and at
``bolt gate --approve`` it compares: any difference stops the run (phase ``stopped``),
naming what changed and how a person puts it right. Resuming checks again and never adopts
a moved branch: only putting the target back (or ``bolt abandon``) ends the stop.

One thing besides the recorded commit is accepted, so a run killed inside its own merge can
resume: a unit recorded ``merging`` may have left exactly its own squash commit (its
trailers, its candidate's bytes) on top of where the target was when that merge began.

Bolt itself never runs a hook (``bolt/git.py`` switches them off); the report is for the
person, whose next git command would.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from aidlc_review.bolt.git import Git
from aidlc_review.bolt.state import RunPhase, RunState, StateStore, UnitState, UnitStatus
from aidlc_review.errors import EXIT_FAILED, AidlcError
from aidlc_review.fsio import sha256_file

# git config that makes git run a program: where hooks are, files included, the fsmonitor,
# filter drivers (keys as git prints them: lower case, subsection kept)
HOOK_CONFIG = (
    r"^(core\.hookspath|core\.fsmonitor|include\.path|includeif\..+\.path"
    r"|filter\..+\.(clean|smudge|process))$"
)
MAX_SHOWN = 20
PUT_RIGHT = "then 'bolt run --resume', or give the run up with 'bolt abandon'"


class RunStopped(AidlcError):
    """The run is stopped until a person puts right what changed under it (exit 1)."""

    exit_code = EXIT_FAILED


def snapshot(git: Git) -> tuple[dict[str, str], list[str]]:
    """The hooks and the hook config as they are now (recorded when a run starts)."""
    return snapshot_hooks(git.common_dir() / "hooks"), git.config_entries(HOOK_CONFIG)


def snapshot_hooks(root: Path) -> dict[str, str]:
    """Every entry under ``root`` by relative path: ``exec``/``file`` + sha256, or
    ``symlink`` + target (links are recorded, never followed)."""
    if root.is_symlink() or (root.exists() and not root.is_dir()):
        return {".": _entry(root)}
    found = {}
    for folder, dirs, files in os.walk(root):
        for name in [*files, *(d for d in dirs if (Path(folder) / d).is_symlink())]:
            path = Path(folder) / name
            found[path.relative_to(root).as_posix()] = _entry(path)
    return dict(sorted(found.items()))


def _entry(path: Path) -> str:
    if path.is_symlink():
        return f"symlink {os.readlink(path)}"
    if not path.is_file():
        return "not a file"
    try:
        digest = sha256_file(path)
    except OSError:
        digest = "unreadable"
    return f"{'exec' if os.access(path, os.X_OK) else 'file'} {digest}"


def check(state: RunState) -> tuple[str | None, list[str]]:
    """The target's commit now and every reason the run may not merge or be approved."""
    git = Git(Path(state.workspace))
    head, moved = _target(git, state)
    hooks = _hooks(git, state)
    return head, [r for r in (moved, hooks) if r]


def alerts(state: RunState) -> list[str]:
    """What ``bolt status`` and the gate show as wrong now (nothing once a run is over)."""
    if state.phase in (RunPhase.DONE, RunPhase.ABANDONED):
        return []
    return check(state)[1]


def require(store: StateStore) -> str:
    """The target's (verified) commit; otherwise the run is stopped and RunStopped raised."""
    head, reasons = check(store.state)
    if reasons or head is None:
        store.stop(reasons)
        raise RunStopped(stopped_message(store.state))
    return head


def stopped_message(state: RunState) -> str:
    return "\n".join([f"bolt run {state.id8} stopped:", *(f"  {r}" for r in state.stopped)])


def refuse_stopped(store: StateStore) -> None:
    """A stopped run is refused at the gate, whether or not it looks put right now: only a
    resume (which checks again) carries it on to the gate."""
    if store.state.phase != RunPhase.STOPPED:
        return
    _, reasons = check(store.state)
    if reasons:
        store.stop(reasons)
        raise RunStopped(stopped_message(store.state))
    raise RunStopped(
        f"{stopped_message(store.state)}\nthat looks put right now: 'bolt run --resume' "
        "checks again and carries the run on to its gate"
    )


# -- the target ------------------------------------------------------------------------


def _expected(state: RunState) -> tuple[str, UnitState | None]:
    """Where Bolt left the target: where it was when an interrupted merge began, else the
    commit recorded after the last merge (or at the start)."""
    for unit in state.units.values():
        if unit.status == UnitStatus.MERGING and unit.target_before:
            return unit.target_before, unit
    return state.target_head, None


def _target(git: Git, state: RunState) -> tuple[str | None, str | None]:
    expected, merging = _expected(state)
    actual = git.branch_head(state.target)
    if actual == expected:
        return actual, None
    if actual and merging and _own_squash(git, state, merging, expected, actual):
        return actual, None
    return actual, _moved(git, state, expected, actual)


def _own_squash(git: Git, state: RunState, unit: UnitState, before: str, head: str) -> bool:
    """``head`` is the squash commit of ``unit``'s interrupted merge, right on ``before``:
    its trailers name this run, unit and candidate, and it changes nothing but the
    candidate's paths, to exactly the candidate's bytes."""
    if not (unit.commit and unit.base) or git.parents(head) != [before]:
        return False
    lines = {line.strip() for line in git.run("log", "-1", "--format=%B", head, "--").splitlines()}
    trailers = {
        f"Bolt-Run: {state.run_id}",
        f"Bolt-Unit: {unit.name}",
        f"Bolt-Candidate: {unit.commit}",
    }
    if not trailers <= lines:
        return False
    paths = git.changed_paths(unit.landed or unit.base, unit.commit)
    return set(git.changed_paths(before, head)) <= set(paths) and git.entries(
        head, paths
    ) == git.entries(unit.commit, paths)


def _moved(git: Git, state: RunState, expected: str, actual: str | None) -> str:
    target = state.target
    if actual is None:
        what = f"{target} was deleted"
    else:
        foreign = git.rev_list(expected, actual)
        if git.is_ancestor(expected, actual):
            what = f"commits Bolt did not make are on top of it: {_shown(foreign)}"
        else:
            what = f"{target} moved from {expected} to {actual}, which does not contain it"
            what += f" (commits Bolt did not make: {_shown(foreign)})" if foreign else ""
    fix = _put_back(git, state, expected, actual)
    return (
        f"{target} is not where Bolt left it ({expected}): {what}; nothing more is merged "
        f"or approved until a person puts it back with `{fix}` (what is on {target} since is "
        f"dropped from it; branch it first to keep it), {PUT_RIGHT}"
    )


def _put_back(git: Git, state: RunState, expected: str, actual: str | None) -> str:
    """The one git command that puts the target back, for where it is checked out: a
    clean checkout is reset (``--keep`` refuses to lose local changes); one whose files are
    still the recorded commit's (the branch was moved under it) only gets its ref back."""
    branch = f"refs/heads/{state.target}"
    place = git.checked_out_at(state.target) if actual else None
    if actual is None:
        argv = ["git", "-C", state.workspace, "update-ref", branch, expected, ""]
    elif place is None:
        argv = ["git", "-C", state.workspace, "update-ref", branch, expected, actual]
    elif Git(place).tracked_changes() and Git(place).succeeds(
        "diff-index", "--quiet", expected, "--"
    ):
        argv = ["git", "-C", str(place), "update-ref", branch, expected, actual]
    else:
        argv = ["git", "-C", str(place), "reset", "--keep", expected]
    return shlex.join(argv)


def _shown(commits: list[str]) -> str:
    more = len(commits) - MAX_SHOWN
    return ", ".join(commits[:MAX_SHOWN]) + (f" and {more} more" if more > 0 else "")


# -- the hooks -------------------------------------------------------------------------


def _hooks(git: Git, state: RunState) -> str | None:
    root = git.common_dir() / "hooks"
    shown = _display(root, Path(state.workspace))
    now = snapshot_hooks(root)
    changes = [
        f"{word} {shown}/{name}" if name != "." else f"{word} {shown}"
        for name, word in _compare(state.hooks, now)
    ]
    config = set(git.config_entries(HOOK_CONFIG))
    changes += [f"config added {e}" for e in sorted(config - set(state.hook_config))]
    changes += [f"config removed {e}" for e in sorted(set(state.hook_config) - config)]
    if not changes:
        return None
    return (
        f"git hooks changed since the run started: {'; '.join(changes)}; Bolt runs none of "
        "them, but git would on a person's next commit or checkout: nothing more is merged "
        "or approved until a person removes or restores them, " + PUT_RIGHT
    )


def _compare(before: dict[str, str], now: dict[str, str]) -> list[tuple[str, str]]:
    names = sorted(set(before) | set(now))
    return [
        (n, "added" if n not in before else "removed" if n not in now else "changed")
        for n in names
        if before.get(n) != now.get(n)
    ]


def _display(path: Path, workspace: Path) -> str:
    return path.relative_to(workspace).as_posix() if path.is_relative_to(workspace) else str(path)
