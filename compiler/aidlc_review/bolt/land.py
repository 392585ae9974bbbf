"""Landing a unit of upstream's swarm in the main workspace: exactly its reviewed bytes.

Upstream's ``aidlc-swarm.ts finalize`` merges a converged unit's engine state, audit and
runtime graph into the main checkout and nothing else: the code, its source manifest and
its review stay in the unit's worktree (``.aidlc/worktrees/bolt-<unit>``, branch
``bolt-<unit>``). ``land_unit`` brings them over, once finalize is done with the worktree:

- it refuses unless the unit's review verifies READY in the worktree (recomputed from the
  bytes, as the swarm's convergence check asks) and finalize has merged the unit (it is
  gone from the main state's ``Bolt Refs``; finalize re-verifies the worktree, which the
  merge removes);
- it commits there exactly the files the receipt covers and the unit's record
  (``<record>/construction/<unit>/``), and refuses a branch that changed anything else
  since it forked, or claimed bytes that differ from the reviewed ones;
- it refuses while the main checkout is in the way: something staged, or a landing path
  the target changed since the fork, edited or left untracked;
- upstream's copies of the state and audit (finalize merged them) and tool leftovers are
  removed from the worktree; anything else uncommitted there is refused, named;
- upstream's own ``aidlc-worktree.ts merge --strategy squash`` merges it (its audit row,
  its commit, its removal of worktree and branch);
- the main workspace must then hold the reviewed bytes, and ``review verify --ready``
  hold there: a record from a worktree is proven from the bytes (``review.record.proof``).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from aidlc_review.bolt.git import Git
from aidlc_review.errors import EXIT_FAILED, AidlcError, InvalidInput
from aidlc_review.fsio import sha256_bytes, sha256_file
from aidlc_review.review.inputs.intent import upstream_harness
from aidlc_review.review.inputs.paths import RecordPaths
from aidlc_review.review.record.models import Receipt
from aidlc_review.review.record.seal import forget_workspace
from aidlc_review.review.record.store import load_receipt
from aidlc_review.review.record.verify import verify_review
from aidlc_review.review.source.freeze import tool_leftovers
from aidlc_review.upstream import names
from aidlc_review.upstream.tools import Engine, RegenerationFailed, find_bun
from aidlc_review.waiting_lock import waiting_lock

WORKTREE_TOOL = names.WORKTREE_TOOL
LAND_LOCK = "aidlc-review-land.lock"  # in the repository's common git dir
LAND_WAIT = 600.0  # seconds: a landing re-verifies the unit twice and runs upstream's merge
STATE_FILE = names.STATE_FILE
_BOLT_REFS = re.compile(r"^- \*\*Bolt Refs\*\*:[ \t]*(.*)$", re.M)
_LITERAL = {"GIT_LITERAL_PATHSPECS": "1"}
MESSAGE = """bolt({unit}): the reviewed bytes (review {verdict}, attempt {attempt}, pass {number})

Bolt-Unit: {unit}
Review-Fingerprint: {fingerprint}
"""
Say = Callable[[str], None]


class NotLanded(AidlcError):
    """The unit cannot land as reviewed (exit 1): nothing was merged."""

    exit_code = EXIT_FAILED


@dataclass(frozen=True)
class Landed:
    unit: str
    target: str
    commit: str | None  # the squash commit on the target; None when it had landed before
    paths: list[str]  # what landed, relative to the project root


@dataclass(frozen=True)
class _Bolt:
    unit: str
    main: Git
    worktree: Git
    target: str
    engine: Engine
    paths: RecordPaths  # the unit's review, in the worktree

    @property
    def branch(self) -> str:
        return names.bolt_branch(self.unit)

    def unit_record(self) -> str:
        return self.worktree_rel(self.paths.unit_dir())

    def record(self) -> str:
        return self.worktree_rel(self.paths.record)

    def worktree_rel(self, path: Path) -> str:
        return path.resolve().relative_to(self.worktree.cwd).as_posix()


def land_unit(workspace: Path, unit: str, say: Say) -> Landed:
    """Merge the unit's reviewed bytes from its swarm worktree into the main workspace.
    One landing at a time per project: each commits in the main checkout and merges into
    its branch, so a second waits for the first, then sees what it landed."""
    root = _main_checkout(workspace)
    lock = Git(root).common_dir() / LAND_LOCK
    waiting = f"waiting for another `bolt land` in this project to finish ({lock})"
    busy = (
        f"{lock}: another `bolt land` held the project's landing lock for {LAND_WAIT:g}s; "
        "nothing was landed; try again when it is done"
    )
    with waiting_lock(lock, LAND_WAIT, say, waiting, busy):
        return _land(root, unit, say)


def _land(root: Path, unit: str, say: Say) -> Landed:
    worktree = root / names.WORKTREES / names.bolt_branch(unit)
    if not worktree.exists():
        return _landed_before(root, worktree, unit, say)
    bolt = _open(root, worktree, unit)
    _require_ready(bolt)
    _require_finalized(bolt)
    receipt = load_receipt(bolt.paths)
    assert receipt is not None  # verify --ready held: the receipt is this machine's
    _commit_reviewed(bolt, receipt, say)
    base = bolt.worktree.run("merge-base", "HEAD", bolt.target).strip()
    landing = _check_branch(bolt, base, receipt)
    _check_target(bolt, base, landing)
    _clear_leftovers(bolt, say)
    commit = _merge(bolt, _message(receipt), say)
    forget_workspace(worktree)  # a worktree made again at this path starts with no seals
    _check_landed(root, unit, receipt)
    say(f"[{unit}] landed in {bolt.target} as {commit[:12]}; its review verifies here")
    return Landed(unit, bolt.target, commit, landing)


def _main_checkout(workspace: Path) -> Path:
    if not workspace.is_dir():
        raise InvalidInput(f"--workspace {workspace}: not a directory")
    git = Git(workspace.resolve())
    if not git.succeeds("rev-parse", "--git-dir"):
        raise InvalidInput(f"--workspace {workspace}: not a git repository")
    top = Path(git.run("rev-parse", "--show-toplevel").strip()).resolve()
    if git.common_dir().resolve().parent != top:
        raise InvalidInput(
            f"--workspace {workspace}: a linked worktree; run this from the project's main "
            "checkout, where upstream's swarm keeps the Bolt worktrees"
        )
    return top


def _landed_before(root: Path, worktree: Path, unit: str, say: Say) -> Landed:
    """No worktree: landed already (its review verifies here), or never forked."""
    if verify_review(root, unit, ready=True):
        raise InvalidInput(
            f"{worktree}: no Bolt worktree for {unit} (upstream's `{names.SWARM_TOOL} prepare` "
            "forks one per unit), and its review does not verify here either"
        )
    say(f"[{unit}] no worktree left and its review verifies here: landed before")
    return Landed(unit, Git(root).current_branch() or "HEAD", None, [])


def _open(root: Path, worktree: Path, unit: str) -> _Bolt:
    main = Git(root)
    harness = upstream_harness(root)
    if harness is None or not Engine.of(harness).has(WORKTREE_TOOL):
        raise InvalidInput(f"{root}: not an upstream AI-DLC project ({WORKTREE_TOOL} not found)")
    target = main.current_branch()
    if target is None:
        raise NotLanded(f"{root}: HEAD is detached; check out the branch {unit} merges into")
    branch = names.bolt_branch(unit)
    found = main.checked_out_at(branch)
    if found is None or found.resolve() != worktree.resolve():
        raise InvalidInput(f"{worktree}: not a git worktree of {root} on {branch}")
    wt = Git(worktree.resolve())
    return _Bolt(unit, main, wt, target, Engine.of(harness), RecordPaths.resolve(wt.cwd, unit))


def _require_ready(bolt: _Bolt) -> None:
    reasons = verify_review(bolt.worktree.cwd, bolt.unit, ready=True)
    if reasons:
        shown = "\n".join(f"  {r}" for r in reasons)
        raise NotLanded(
            f"[{bolt.unit}] not landed: its review does not verify READY in "
            f"{bolt.worktree.cwd}:\n{shown}"
        )


def _require_finalized(bolt: _Bolt) -> None:
    """Landing removes the worktree ``finalize`` re-verifies: finalize comes first."""
    record = RecordPaths.resolve(bolt.main.cwd, bolt.unit).record
    relative = record.resolve().relative_to(bolt.main.cwd).as_posix()
    if relative != bolt.record():
        raise NotLanded(
            f"[{bolt.unit}] not landed: the project's active intent ({relative}) is not the "
            f"one its worktree reviewed ({bolt.record()})"
        )
    try:
        state = (record / STATE_FILE).read_text(encoding="utf-8")
    except OSError as exc:
        raise NotLanded(f"{record / STATE_FILE}: cannot read upstream's state: {exc}") from None
    found = _BOLT_REFS.search(state)
    refs = found.group(1).strip().strip("[]") if found else ""
    if bolt.unit in {r.strip() for r in refs.split(",")}:
        raise NotLanded(
            f"[{bolt.unit}] not landed: upstream's finalize has not merged it yet (it is in "
            f"Bolt Refs); run `{names.SWARM_TOOL} finalize` with it claimed first"
        )


def _commit_reviewed(bolt: _Bolt, receipt: Receipt, say: Say) -> None:
    """Commit on the unit's branch what is to land, once no stray change is left there."""
    changed = bolt.worktree.uncommitted_paths()
    landing = [p for p in changed if _lands(bolt, receipt, p)]
    stray = [p for p in changed if p not in landing and not _leftover(bolt, p)]
    if stray:
        raise NotLanded(
            f"[{bolt.unit}] not landed: its worktree holds changes that are neither the files "
            f"its review covers nor its record: {', '.join(stray)}; claim them and review "
            "again, or remove them"
        )
    if not landing:
        return
    bolt.worktree.run("add", "--all", "--", *landing, env=_LITERAL)
    wt = bolt.worktree
    wt.run(*wt.identity(), "commit", "--quiet", "--no-verify", "-m", _message(receipt))
    say(f"[{bolt.unit}] committed {len(landing)} reviewed path(s) on {bolt.branch}")


def _lands(bolt: _Bolt, receipt: Receipt, path: str) -> bool:
    return path in receipt.files or path.startswith(bolt.unit_record() + "/")


def _leftover(bolt: _Bolt, path: str) -> bool:
    """Upstream's forked copies of state and audit (finalize merged them), tool leftovers."""
    record = bolt.record()
    forked = path == f"{record}/{STATE_FILE}" or path.startswith(f"{record}/audit/")
    return forked or bool(tool_leftovers().search(path))


def _check_branch(bolt: _Bolt, base: str, receipt: Receipt) -> list[str]:
    """What the branch changed since it forked: only what lands, claimed bytes as reviewed."""
    wt = bolt.worktree
    changed = wt.changed_paths(base, "HEAD")
    others = [p for p in changed if not _lands(bolt, receipt, p)]
    if others:
        raise NotLanded(
            f"[{bolt.unit}] not landed: {bolt.branch} changed paths its review does not "
            f"cover since it forked from {base[:12]}: {', '.join(others)}"
        )
    for path, digest in sorted(receipt.files.items()):
        blob = wt.blob("HEAD", path)
        if blob is None or sha256_bytes(blob) != digest:
            raise NotLanded(
                f"[{bolt.unit}] not landed: {path} on {bolt.branch} is not the reviewed version"
            )
    return changed


def _check_target(bolt: _Bolt, base: str, landing: list[str]) -> None:
    """The squash must write exactly the branch's bytes: nothing of the target's in the way."""
    main = bolt.main
    if not main.succeeds("diff", "--cached", "--quiet"):
        raise NotLanded(
            f"{main.cwd}: changes are staged; commit or unstage them before {bolt.unit} lands"
        )
    moved = sorted(set(landing) & set(main.changed_paths(base, "HEAD")))
    edited = sorted(set(landing) & set(main.tracked_changes()))
    tracked = main.modes("HEAD", landing)
    untracked = [p for p in landing if p not in tracked and os.path.lexists(main.cwd / p)]
    blocked = [
        *(f"{p} (changed on {bolt.target} since the fork)" for p in moved),
        *(f"{p} (edited, not committed)" for p in edited),
        *(f"{p} (untracked here)" for p in untracked),
    ]
    if blocked:
        raise NotLanded(
            f"[{bolt.unit}] not landed: in {main.cwd}, {'; '.join(blocked)}; its reviewed "
            "bytes cannot land as reviewed"
        )


def _clear_leftovers(bolt: _Bolt, say: Say) -> None:
    """Upstream removes only a clean worktree: what is left is its own state and caches."""
    wt = bolt.worktree
    left = wt.uncommitted_paths()
    tracked = wt.modes("HEAD", left)
    restore = [p for p in left if p in tracked]
    if restore:
        wt.run("checkout", "--quiet", "HEAD", "--", *restore, env=_LITERAL)
    for path in left:
        if path not in tracked:
            (wt.cwd / path).unlink(missing_ok=True)
    if left:
        say(f"[{bolt.unit}] cleared upstream's merged state and tool leftovers from its worktree")


def _merge(bolt: _Bolt, message: str, say: Say) -> str:
    bun = find_bun()
    argv = bolt.engine.argv(WORKTREE_TOOL, "merge", "--slug", bolt.unit)
    argv += ["--target", bolt.target, "--strategy", "squash", "--message", message]
    if bun is None:
        raise NotLanded(
            f"[{bolt.unit}] not landed: {names.RUNNER} not found to run upstream's {argv[1]}"
        )
    say(f"[{bolt.unit}] merging with upstream's {WORKTREE_TOOL} merge --strategy squash")
    try:
        out = bolt.engine.run(argv, bun)
    except RegenerationFailed as exc:
        raise NotLanded(f"[{bolt.unit}] upstream's merge did not land it: {exc}") from None
    try:
        return str(json.loads(out)["commit_sha"])
    except (ValueError, KeyError, TypeError):
        return bolt.main.rev_parse("HEAD")


def _check_landed(root: Path, unit: str, receipt: Receipt) -> None:
    """The reviewed bytes are what the main workspace holds, and its review verifies."""
    differ = [p for p, digest in sorted(receipt.files.items()) if _digest(root / p) != digest]
    reasons = [f"{p}: not the reviewed bytes" for p in differ]
    reasons = reasons or verify_review(root, unit, ready=True)
    if reasons:
        shown = "\n".join(f"  {r}" for r in reasons)
        raise NotLanded(f"[{unit}] merged, but its review does not verify here:\n{shown}")


def _digest(path: Path) -> str | None:
    try:
        return sha256_file(path)
    except OSError:
        return None


def _message(receipt: Receipt) -> str:
    return MESSAGE.format(
        unit=receipt.unit,
        verdict=receipt.verdict,
        attempt=receipt.attempt,
        number=receipt.number,
        fingerprint=receipt.unit_source_fingerprint,
    )
