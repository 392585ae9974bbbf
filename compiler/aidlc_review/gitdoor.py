"""The one door to git: every git command the review runs goes through ``git``.

Why a top-level module (not ``review/source/git.py``): the sensors, Bolt and the hooks
ask git too, and the import layers let every one of them import a shared module, while
``review`` may not be imported by ``sensors``. One set of safety flags, said once:

- argv, never a shell; ``--`` before any path, so a file named ``-x`` is a path;
- ``--no-pager``, ``GIT_TERMINAL_PROMPT=0``: nothing waits for a person;
- ``GIT_OPTIONAL_LOCKS=0``: a read never takes the index lock a user's commit needs;
- ``--no-replace-objects``, ``core.fsmonitor=false``, ``core.excludesFile=/dev/null``:
  nothing configured outside the tree (a replace ref, an fsmonitor program, a personal
  excludes file) changes what git reports about the tree;
- ``core.quotePath=off``: names come back as bytes, not octal escapes;
- a timeout: a hung git is an answer (None), not a hung review.

A failed command (git missing, non-zero exit, timeout) answers None; callers say what it
means for them.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

TIMEOUT = 120.0
SAFE_FLAGS = (
    "--no-pager",
    "--no-replace-objects",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.excludesFile=/dev/null",
    "-c",
    "core.quotePath=off",
)


# what every git process gets in its environment (a caller running git its own way, with
# its own caps on output and time as the sensors do, passes these and ``git_argv``'s argv)
GIT_ENV = {"GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0"}


def git_argv(
    workspace: Path, args: Sequence[str], paths: Sequence[str] = (), program: str = "git"
) -> list[str]:
    """The argv ``git`` runs: the safety flags before the command, ``--`` before paths.
    ``program``: the git a caller found (a run that pins its tools' PATH)."""
    tail = ["--", *paths] if paths else []
    return [program, "-C", str(workspace), *SAFE_FLAGS, *args, *tail]


def git(
    workspace: Path,
    *args: str,
    paths: Sequence[str] = (),
    stdin: bytes | None = None,
    timeout: float = TIMEOUT,
) -> bytes | None:
    """git's standard output, or None when git is missing, fails or times out."""
    env = {**os.environ, **GIT_ENV}
    try:
        done = subprocess.run(
            git_argv(workspace, args, paths),
            input=stdin,
            capture_output=True,
            timeout=timeout,
            check=False,
            env=env,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def git_text(workspace: Path, *args: str, timeout: float = TIMEOUT) -> str | None:
    """``git``'s answer as stripped text (names decoded as the file system does)."""
    out = git(workspace, *args, timeout=timeout)
    return None if out is None else os.fsdecode(out).strip()
