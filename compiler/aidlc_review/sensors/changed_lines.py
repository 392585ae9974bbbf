"""Which lines of the claimed files changed since a base revision (``git diff``), per file.

A claimed file that did not exist at the base changed in full, whether git
tracks it yet or not.
"""

from __future__ import annotations

import re
from pathlib import Path

from aidlc_review.gitdoor import GIT_ENV, git_argv
from aidlc_review.sensors.context import SensorError
from aidlc_review.sensors.tools import find_tool, last_line, run_tool

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", re.MULTILINE)
_FILE = re.compile(r"^\+\+\+ b/(.+)$", re.MULTILINE)


def changed_lines(
    workspace: Path, base: str, files: list[str], timeout: float
) -> dict[str, set[int]]:
    git = find_tool("git")
    if git is None:
        raise SensorError("git not found on PATH (needed for changed-lines coverage)")
    if base.startswith("-"):
        raise SensorError(f"base revision {base!r} looks like an option")
    at_base = set(
        _git(
            git, workspace, timeout, ["ls-tree", "-r", "--name-only", base, "--", *files]
        ).splitlines()
    )
    diff = _git(
        git,
        workspace,
        timeout,
        ["diff", "--unified=0", "--no-color", "--no-ext-diff", "--relative", base, "--", *files],
    )
    changed = _parse_diff(diff)
    for path in files:
        if path not in at_base:
            changed[path] = _all_lines(workspace / path)
    return {path: lines for path, lines in changed.items() if path in set(files)}


def _git(git: Path, workspace: Path, timeout: float, args: list[str]) -> str:
    run = run_tool(git_argv(workspace, args, program=str(git)), workspace, timeout, env=GIT_ENV)
    if run.timed_out:
        raise SensorError(f"git {args[0]} timed out after {timeout:g}s")
    if run.returncode != 0:
        raise SensorError(
            f"git {args[0]} against the base revision failed: {last_line(run.stderr)}"
        )
    return run.stdout


def _parse_diff(diff: str) -> dict[str, set[int]]:
    changed: dict[str, set[int]] = {}
    for block in re.split(r"^diff --git ", diff, flags=re.MULTILINE)[1:]:
        name = _FILE.search(block)
        if name is None:
            continue  # a deleted file: nothing left to cover
        lines = changed.setdefault(name.group(1), set())
        for hunk in _HUNK.finditer(block):
            start, count = int(hunk.group(1)), int(hunk.group(2) or 1)
            lines.update(range(start, start + count))
    return changed


def _all_lines(path: Path) -> set[int]:
    with open(path, "rb") as handle:
        return set(range(1, sum(1 for _ in handle) + 1))
