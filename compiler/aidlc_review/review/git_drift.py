"""Unclaimed changes measured against git: the unit's base commit versus the working tree.

The stage-entry snapshot only sees what changed after the first pass; code generation
runs before it, so an unclaimed edit it left (a config file silencing a sensor, an
untracked module) would be folded into the snapshot. Git knows better: everything that
differs from the unit's base (the workspace's ``base-revision``, else ``HEAD`` when the
review starts; in Bolt the unit's branch point), untracked files included, is a change
some unit must claim, except the record, the engine's own state and, in an upstream
AI-DLC project, the ``aidlc/`` tree upstream's engine writes. The harness (``.claude/``)
is configuration, committed before construction: it is not exempt.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from aidlc_review.errors import InvalidInput

UPSTREAM_ENGINE = ".claude/tools/aidlc-orchestrate.ts"
UPSTREAM_RECORD = "aidlc"
_KINDS = {"A": "added", "D": "deleted", "M": "changed", "T": "changed"}


def is_git_checkout(workspace: Path) -> bool:
    return (workspace / ".git").exists()


def resolve_base(workspace: Path, revision: str | None) -> str | None:
    """The base commit's id, or None outside git; a revision git does not know is bad input."""
    if not is_git_checkout(workspace):
        return None
    wanted = revision or "HEAD"
    done = _git(workspace, "rev-parse", "--verify", "-q", f"{wanted}^{{commit}}")
    if done is None:
        if revision is None:
            return None  # a repository without a commit yet: nothing to compare with
        raise InvalidInput(f"base-revision {revision!r}: not a commit in {workspace}")
    return done.strip()


def engine_owned(workspace: Path) -> list[str]:
    """Workspace-relative prefixes only the engines write (beyond the record dir)."""
    return [UPSTREAM_RECORD] if (workspace / UPSTREAM_ENGINE).is_file() else []


def changes_since(workspace: Path, base: str) -> dict[str, str] | None:
    """``{path: added|changed|deleted|untracked}`` from ``base`` to the working tree; None if
    git cannot tell (the base is gone, git is missing)."""
    diff = _git(workspace, "diff", "--name-status", "-z", "--no-renames", base, "--")
    others = _git(workspace, "ls-files", "-z", "--others", "--exclude-standard")
    if diff is None or others is None:
        return None
    fields = [f for f in diff.split("\0") if f]
    found = {
        path: _KINDS.get(kind[:1], "changed")
        for kind, path in zip(fields[::2], fields[1::2], strict=False)
    }
    found.update({path: "untracked" for path in others.split("\0") if path})
    return found


def committed_as_is(workspace: Path, path: Path, data: bytes) -> bool:
    """True when ``path`` holds exactly what the checkout's HEAD commit has for it."""
    try:
        relative = path.resolve().relative_to(workspace.resolve()).as_posix()
        done = subprocess.run(
            ["git", "-C", str(workspace), "show", f"HEAD:./{relative}"],
            capture_output=True,
            timeout=120,
            check=False,
        )
    except (OSError, ValueError, subprocess.SubprocessError):
        return False
    return done.returncode == 0 and done.stdout == data


def _git(workspace: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(workspace), *args], capture_output=True, timeout=120, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.decode("utf-8", "surrogateescape") if done.returncode == 0 else None
