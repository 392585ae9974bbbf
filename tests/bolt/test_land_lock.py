"""``bolt land`` runs one at a time per project: a second landing waits for the first's
lock in the repository's git dir, and gives up, naming the lock and landing nothing,
when it is held too long."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from filelock import FileLock

from aidlc_review.bolt import land
from aidlc_review.errors import InvalidInput, LockBusy


def _repo(where: Path) -> Path:
    where.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main", str(where)], check=True)
    return where


def _status(repo: Path) -> str:
    done = subprocess.run(
        ["git", "status", "--porcelain", "--ignored", "--untracked-files=all"],
        cwd=repo, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout


def test_a_landing_while_another_holds_the_lock_gives_up_naming_it(tmp_path, monkeypatch):
    repo = _repo(tmp_path / "project")
    monkeypatch.setattr(land, "LAND_WAIT", 0.3)
    said: list[str] = []
    lock_path = repo / ".git" / land.LAND_LOCK
    before = _status(repo)

    with FileLock(str(lock_path)), pytest.raises(LockBusy) as refused:
        land.land_unit(repo, "u1", said.append)

    assert str(refused.value) == (
        f"{lock_path}: another `bolt land` held the project's landing lock for 0.3s; "
        "nothing was landed; try again when it is done"
    )
    assert said == [f"waiting for another `bolt land` in this project to finish ({lock_path})"]
    assert _status(repo) == before


def test_a_landing_goes_on_once_the_other_lets_go(tmp_path, monkeypatch):
    repo = _repo(tmp_path / "project")
    monkeypatch.setattr(land, "LAND_WAIT", 30.0)
    lock_path = repo / ".git" / land.LAND_LOCK
    holder = (
        "import sys, time\nfrom filelock import FileLock\n"
        "with FileLock(sys.argv[1]):\n    print('held', flush=True)\n    time.sleep(0.5)\n"
    )
    other = subprocess.Popen(
        [sys.executable, "-c", holder, str(lock_path)], stdout=subprocess.PIPE, text=True
    )
    assert other.stdout is not None and other.stdout.readline() == "held\n"

    # it got past the lock: what it met next is this repository having no Bolt worktree
    with pytest.raises(InvalidInput, match="no Bolt worktree for u1"):
        land.land_unit(repo, "u1", lambda _: None)
    assert other.wait(timeout=30) == 0
