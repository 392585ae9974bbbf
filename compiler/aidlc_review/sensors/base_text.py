"""The claimed files as they stood at the unit's base commit: what judges the change.

The base is the commit the review compares with (``settings["judged_at"]``, the sealed
baseline's; else ``base_revision``; else ``HEAD``). Outside git, or in a repository with no
commit yet, there is no base: nothing proves a line predates the change, so every file reads
as new (None). A commit's bytes never change, so texts are kept per commit for the process.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from aidlc_review.gitdoor import GIT_ENV, git_argv
from aidlc_review.sensors.tools import find_tool, run_tool

_KNOWN: dict[tuple[str, str, str], str | None] = {}  # (git dir, commit, path) -> text
_LOCK = threading.Lock()
TIMEOUT = 30.0


def base_commit(workspace: Path, settings: Mapping[str, Any]) -> str | None:
    """The base commit's id, or None when there is none to read."""
    wanted = settings.get("judged_at") or settings.get("base_revision") or "HEAD"
    if not isinstance(wanted, str) or wanted.startswith("-"):
        return None
    said = _git(workspace, ["rev-parse", "--verify", "-q", f"{wanted}^{{commit}}"])
    return said.strip() if said else None


def base_texts(workspace: Path, commit: str | None, paths: list[str]) -> dict[str, str | None]:
    """Each path's text at ``commit`` (None: absent there, not text, or no base at all)."""
    if commit is None:
        return dict.fromkeys(paths)
    texts: dict[str, str | None] = {}
    for path in paths:
        key = (str(workspace.resolve()), commit, path)
        with _LOCK:
            known = key in _KNOWN
            text = _KNOWN.get(key)
        if not known:
            text = _git(workspace, ["show", f"{commit}:./{path}"])  # ./: from the workspace
            with _LOCK:
                _KNOWN[key] = text
        texts[path] = text
    return texts


def _git(workspace: Path, args: list[str]) -> str | None:
    git = find_tool("git")
    if git is None:
        return None
    run = run_tool(git_argv(workspace, args, program=str(git)), workspace, TIMEOUT, env=GIT_ENV)
    if run.returncode != 0:
        return None
    return run.stdout
