"""Where a static check runs when the change edits its tools' configuration: the change's
source under the base's configuration (DESIGN.md §9: the change never decides how it is
judged).

The tree is the repository exported at the unit's base (``git archive``, extracted with
tarfile's ``data`` filter: nothing lands outside it) with every claimed file laid over it as
it is now, except the claimed files whose tool configuration differs from the base: those
stay as the base has them (absent when the base has none). The workspace's own untracked
folders (``node_modules``, ``.venv``) are linked in, so the tools and the packages are the
project's; ``.git`` is linked too, so what the checks read at the base (suppressions,
baselines) is read from the same history. Findings come back workspace-relative, as from
the workspace itself. Outside git there is no base to export: the check runs in the
workspace, and the configuration finding blocks on its own.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tarfile
import tempfile
from collections.abc import Iterator
from pathlib import Path

from aidlc_review.gitdoor import GIT_ENV, git_argv
from aidlc_review.sensors.tools import find_tool, run_tool

TIMEOUT = 300.0


@contextlib.contextmanager
def judging_tree(
    workspace: Path, commit: str | None, claimed: list[str], kept_at_base: set[str], scratch: Path
) -> Iterator[Path | None]:
    """The workspace's counterpart in a tree judged with the base's configuration, or None
    when it cannot be made (then the caller runs in the workspace)."""
    folder = Path(tempfile.mkdtemp(prefix="judged-", dir=scratch))
    try:
        root = _exported(workspace, commit, folder) if commit else None
        if root is None:
            yield None
            return
        tree = root / _prefix(workspace)
        tree.mkdir(parents=True, exist_ok=True)
        _lay_over(workspace, tree, [p for p in claimed if p not in kept_at_base])
        _link_untracked(workspace, tree)
        os.symlink(_git_dir(workspace), root / ".git")
        yield tree
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def base_tree(workspace: Path, commit: str, scratch: Path) -> Iterator[Path | None]:
    """The workspace's counterpart in the repository as it stood at ``commit``, nothing laid
    over it and nothing of the workspace linked in (a file the change added, tracked or not,
    is absent), with ``.git`` linked so what the checks read at the base (suppressions,
    configuration, baselines) is read from the same history; None when git cannot export."""
    folder = Path(tempfile.mkdtemp(prefix="base-", dir=scratch))
    try:
        root = _exported(workspace, commit, folder)
        if root is None:
            yield None
            return
        tree = root / _prefix(workspace)
        tree.mkdir(parents=True, exist_ok=True)
        os.symlink(_git_dir(workspace), root / ".git")
        yield tree
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _exported(workspace: Path, commit: str, folder: Path) -> Path | None:
    """The whole repository at ``commit`` under ``folder / "repo"``; None when git cannot."""
    git = find_tool("git")
    top = _git_text(workspace, ["rev-parse", "--show-toplevel"])
    if git is None or top is None:
        return None
    archive = folder / "base.tar"
    run = run_tool(
        git_argv(
            Path(top), ["archive", "--format=tar", "-o", str(archive), commit], program=str(git)
        ),
        Path(top),
        TIMEOUT,
        env=GIT_ENV,
    )
    if run.returncode != 0 or not archive.is_file():
        return None
    root = folder / "repo"
    with tarfile.open(archive) as tar:
        tar.extractall(root, filter="data")
    archive.unlink()
    return root


def _prefix(workspace: Path) -> str:
    return (_git_text(workspace, ["rev-parse", "--show-prefix"]) or "").strip()


def _git_dir(workspace: Path) -> str:
    said = _git_text(workspace, ["rev-parse", "--absolute-git-dir"])
    return said.strip() if said else str(workspace / ".git")


def _git_text(workspace: Path, args: list[str]) -> str | None:
    git = find_tool("git")
    if git is None:
        return None
    run = run_tool(git_argv(workspace, args, program=str(git)), workspace, 30.0, env=GIT_ENV)
    return run.stdout.strip() if run.returncode == 0 else None


def _lay_over(workspace: Path, tree: Path, paths: list[str]) -> None:
    """Each claimed file as it is now (a claimed file the change deleted is deleted)."""
    for path in paths:
        source, target = workspace / path, tree / path
        if target.is_symlink() or target.is_file():
            target.unlink()
        if source.is_file() and not source.is_symlink():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


def _link_untracked(workspace: Path, tree: Path) -> None:
    """The workspace's top-level entries the base does not hold (installed packages, the
    project's virtualenv, build output), linked into the tree as they are."""
    for entry in os.scandir(workspace):
        if entry.name == ".git" or os.path.lexists(tree / entry.name):
            continue
        os.symlink(entry.path, tree / entry.name)
