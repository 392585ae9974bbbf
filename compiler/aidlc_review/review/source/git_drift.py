"""Unclaimed changes measured against git: the unit's base commit versus the working tree.

The stage-entry snapshot only sees what changed after the first pass; code generation
runs before it, so an unclaimed edit it left (a config file silencing a sensor, an
untracked module) would be folded into the snapshot. Git knows better: everything that
differs from the unit's base (the workspace's ``base-revision``, else ``HEAD`` when the
review starts; in Bolt the unit's branch point), untracked files included, is a change
some unit must claim, except the record, the engine's own state and, in an upstream
AI-DLC project, what upstream's engine writes (``engine_owned``): the ``aidlc/`` tree and
the Bolt worktrees its swarm forks under ``.aidlc/worktrees/``. The harness (``.claude/``)
is configuration, committed before construction: it is not exempt.

What git is asked is asked so that nothing local to this clone can hide a file. Only the
tree's own ``.gitignore`` files may leave one out (they are source: a change to one is
itself drift, and none of them can hide itself); ``.git/info/exclude``,
``core.excludesFile`` and the global excludes file are not read. Files are compared with
the base by their bytes, never through ``git diff``: an attribute or a clean filter
configured in ``.git/`` (not source) could make a changed file look unchanged, and so
could ``assume-unchanged``, an fsmonitor hook or a replace ref for the base.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path

from aidlc_review.errors import InvalidInput
from aidlc_review.gitdoor import git
from aidlc_review.upstream import names

UPSTREAM_ENGINE = names.tool_path(names.ORCHESTRATE_TOOL)
UPSTREAM_RECORD = names.RECORDS
UPSTREAM_WORKTREES = names.WORKTREES  # where upstream's swarm forks bolt-<unit> worktrees
# ls-files --others: the tree's .gitignore files only (no --exclude-standard, which adds
# the local and global excludes), and never a .gitignore itself.
_TREE_IGNORES = ("--exclude-per-directory=.gitignore", "--exclude=!.gitignore")
_SYMLINK = "120000"
_OBJECT_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
# what one command (a pass, a gate) already asked git, while it asks within ``one_look``:
# answers about a commit named by its full id (they never change), and the tree's listing
# while ``listed_once`` holds (until ``look_again``)
_ASKED: ContextVar[dict[tuple[str, ...], object] | None] = ContextVar("git_asked", default=None)
_LISTED: ContextVar[dict[str, Listing | None] | None] = ContextVar("git_listed", default=None)


@dataclass(frozen=True)
class Listing:
    """The working tree's files as git lists them: in the index, or untracked and not
    ignored by the tree's ``.gitignore`` files."""

    tracked: frozenset[str]
    untracked: frozenset[str]

    @property
    def every(self) -> frozenset[str]:
        return self.tracked | self.untracked


@contextmanager
def one_look() -> Iterator[None]:
    """Within: what git says about a commit named by its full object id (the commit
    itself, a file at it, its tree) is asked once per workspace. An object id names the
    same bytes for good (``gitdoor`` ignores replace refs), so the answer cannot change;
    ``HEAD``, a branch or the working tree are asked every time."""
    token = _ASKED.set({} if _ASKED.get() is None else _ASKED.get())
    try:
        yield
    finally:
        _ASKED.reset(token)


@contextmanager
def listed_once() -> Iterator[None]:
    """Within: ``list_files`` lists each workspace's tree once, for a caller that writes
    nothing in it meanwhile (a gate before its sensors run); ``look_again`` ends that
    (something may have written since: the sensors ran)."""
    token = _LISTED.set({})
    try:
        yield
    finally:
        _LISTED.reset(token)


def look_again() -> None:
    """The next ``list_files`` asks git again, even inside ``listed_once``."""
    listed = _LISTED.get()
    if listed is not None:
        listed.clear()
        _LISTED.set(None)


def _asked_once(workspace: Path, commit: str, *args: str) -> str | None:
    """``_git(workspace, *args)``, asked once inside ``one_look`` when ``commit`` is a
    full object id."""
    asked = _ASKED.get()
    if asked is None or not _OBJECT_ID.fullmatch(commit):
        return _git(workspace, *args)
    key = (str(workspace), *args)
    if key not in asked:
        asked[key] = _git(workspace, *args)
    found = asked[key]
    return found if isinstance(found, str) else None


def is_git_checkout(workspace: Path) -> bool:
    return (workspace / ".git").exists()


def resolve_base(workspace: Path, revision: str | None) -> str | None:
    """The base commit's id, or None outside git; a revision git does not know is bad input."""
    if not is_git_checkout(workspace):
        return None
    wanted = revision or "HEAD"
    done = _asked_once(workspace, wanted, "rev-parse", "--verify", "-q", f"{wanted}^{{commit}}")
    if done is None:
        if revision is None:
            return None  # a repository without a commit yet: nothing to compare with
        raise InvalidInput(f"base-revision {revision!r}: not a commit in {workspace}")
    return done.strip()


def show_at(workspace: Path, commit: str, path: str) -> str | None:
    """``path`` as it stands at ``commit`` (text), or None when the commit has no such file."""
    return _asked_once(workspace, commit, "show", f"{commit}:{path}")


def engine_owned(workspace: Path) -> list[str]:
    """Workspace-relative prefixes only the engines write (beyond the record dir): in an
    upstream project its ``aidlc/`` tree and each Bolt worktree of its swarm."""
    if not (workspace / UPSTREAM_ENGINE).is_file():
        return []
    return [UPSTREAM_RECORD, *bolt_worktrees(workspace)]


def bolt_worktrees(workspace: Path) -> list[str]:
    """``.aidlc/worktrees/bolt-<unit>`` folders that are checkouts of this repository's own.

    Upstream's swarm forks one per unit (``aidlc-worktree.ts create``) and leaves it there
    until the unit merges, or for good when it never does. Only a worktree git registered
    here, holding its ``.git`` link, is exempt: git never adds what such a folder holds to
    this checkout's commits (at most a link to it), whereas a file put there by hand, or a
    folder that merely looks like one, is source like any other."""
    listed = _git(workspace, "worktree", "list", "--porcelain", "-z")
    if listed is None:
        return []
    root = (workspace / UPSTREAM_WORKTREES).resolve()
    found = []
    for field in _split(listed):
        if not field.startswith("worktree "):
            continue
        path = Path(field.removeprefix("worktree ")).resolve()
        if (
            path.parent == root
            and path.name.startswith(names.BOLT_PREFIX)
            and (path / ".git").is_file()
        ):
            found.append(f"{UPSTREAM_WORKTREES}/{path.name}")
    return sorted(found)


def list_files(workspace: Path) -> Listing | None:
    """Every file of the working tree git can name, or None outside git (or if git fails).

    An untracked nested repository, which git lists as one ``dir/``, is listed file by
    file: making a directory a repository must not hide what is in it.
    """
    if not is_git_checkout(workspace):
        return None
    listed = _LISTED.get()
    if listed is None:
        return _listed(workspace)
    if str(workspace) not in listed:
        listed[str(workspace)] = _listed(workspace)
    return listed[str(workspace)]


def _listed(workspace: Path) -> Listing | None:
    """One ``ls-files`` for both halves: ``-t`` tags each entry, ``?`` for an untracked
    file (the tree's ignore files apply to those only), a letter for one in the index
    (``H``, ``S`` skip-worktree, ``M`` unmerged...)."""
    listed = _git(workspace, "ls-files", "-z", "-t", "--cached", "--others", *_TREE_IGNORES)
    if listed is None:
        return None
    tracked: set[str] = set()
    untracked: set[str] = set()
    for entry in _split(listed):
        tag, path = entry[:2], entry[2:]
        if tag == "? ":
            untracked.update(_files_under(workspace, path) if path.endswith("/") else [path])
        elif len(tag) == 2 and tag[1] == " " and path:
            tracked.add(path)
        else:
            return None  # not what this git lists with -t: no listing rather than a wrong one
    return Listing(frozenset(tracked), frozenset(untracked))


def changes_since(
    workspace: Path, base: str, listing: Listing | None = None
) -> dict[str, str] | None:
    """``{path: added|changed|deleted|untracked}`` from ``base`` to the working tree; None if
    git cannot tell (the base is gone, git is missing). ``listing``: the tree as git listed
    it just now (nothing written since), else it is listed here."""
    tree = _tree(workspace, base)
    if listing is None:
        listing = list_files(workspace)
    if tree is None or listing is None:
        return None
    found = {}
    for path, (mode, blob) in tree.items():
        target = workspace / path
        if not os.path.lexists(target):
            found[path] = "deleted"
        elif not _holds(target, mode, blob):
            found[path] = "changed"
    for path in listing.every - tree.keys():
        if os.path.lexists(workspace / path):
            found[path] = "added" if path in listing.tracked else "untracked"
    return found


def _tree(workspace: Path, base: str) -> dict[str, tuple[str, str]] | None:
    """``{path: (mode, blob id)}`` of every file in the base commit (submodules aside)."""
    listed = _asked_once(workspace, base, "ls-tree", "-r", "-z", "--full-tree", base)
    if listed is None:
        return None
    found = {}
    for entry in _split(listed):
        meta, _, path = entry.partition("\t")
        mode, kind, blob = meta.split(" ")
        if kind == "blob":
            found[path] = (mode, blob)
    return found


def _holds(target: Path, mode: str, blob: str) -> bool:
    """Does ``target`` hold the base's bytes? Line endings aside: a checkout may turn LF
    into CRLF (``core.autocrlf``), which changes no meaning."""
    try:
        if (mode == _SYMLINK) != target.is_symlink():
            return False
        data = os.fsencode(os.readlink(target)) if mode == _SYMLINK else target.read_bytes()
    except OSError:
        return False
    if _blob_id(data, blob) == blob:
        return True
    return b"\r\n" in data and _blob_id(data.replace(b"\r\n", b"\n"), blob) == blob


def _blob_id(data: bytes, like: str) -> str:
    """Git's object id for a blob of ``data``, in the repository's hash (as long as ``like``)."""
    digest = hashlib.sha256() if len(like) == 64 else hashlib.sha1()  # noqa: S324  # git's id
    digest.update(b"blob %d\0" % len(data) + data)
    return digest.hexdigest()


def _files_under(workspace: Path, folder: str) -> list[str]:
    found = []
    for parent, dirs, files in os.walk(workspace / folder):
        dirs[:] = sorted(d for d in dirs if d != ".git")
        found += [(Path(parent) / n).relative_to(workspace).as_posix() for n in files]
    return found


def _split(output: str) -> list[str]:
    return [field for field in output.split("\0") if field]


def _git(workspace: Path, *args: str) -> str | None:
    """git through the one door (``gitdoor``: its safety flags, its timeout), the work tree
    pinned to the workspace (no ``core.worktree`` in ``.git/config`` moves it)."""
    out = git(workspace, "--work-tree=.", *args)
    return None if out is None else os.fsdecode(out)
