"""``aidlc_review.flock``: one holder at a time across processes, the lock gone with its
holder, and the same lock ``filelock`` takes (tests and hosts hold it with filelock)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from aidlc_review.flock import FileLock, Timeout

HOLDER = (
    "import sys, time\nfrom filelock import FileLock\n"
    "with FileLock(sys.argv[1]):\n"
    "    print('held', flush=True)\n"
    "    time.sleep(float(sys.argv[2]))\n"
)


def hold(path: Path, seconds: float) -> subprocess.Popen[str]:
    """Another process holding ``path`` with filelock, until ``seconds`` pass or it is killed."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path), str(seconds)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline() == "held\n"
    return proc


def test_a_lock_another_process_holds_is_refused_after_the_wait_naming_the_file(tmp_path):
    path = tmp_path / "unit.lock"
    holder = hold(path, 30)
    try:
        started = time.monotonic()
        with pytest.raises(Timeout) as caught:
            FileLock(path).acquire(timeout=0.3)
        assert time.monotonic() - started >= 0.3
        assert caught.value.lock_file == str(path)
        assert str(path) in str(caught.value)
    finally:
        holder.kill()
        holder.wait()


def test_a_killed_holder_leaves_no_lock_behind(tmp_path):
    path = tmp_path / "unit.lock"
    holder = hold(path, 30)
    holder.kill()
    holder.wait()
    lock = FileLock(path, timeout=0)
    lock.acquire()
    assert lock.is_locked
    lock.release()
    assert not lock.is_locked


def test_a_waiter_gets_the_lock_once_the_holder_lets_go(tmp_path):
    path = tmp_path / "unit.lock"
    holder = hold(path, 0.3)
    with FileLock(path, timeout=10) as lock:
        assert lock.is_locked
    holder.wait()


def test_filelock_sees_this_lock_too(tmp_path):
    from filelock import FileLock as TheirLock
    from filelock import Timeout as TheirTimeout

    path = tmp_path / "unit.lock"
    with FileLock(path), pytest.raises(TheirTimeout):
        TheirLock(str(path)).acquire(timeout=0)


def test_it_is_not_reentrant_each_with_is_one_acquisition(tmp_path):
    path = tmp_path / "unit.lock"
    first = FileLock(path)
    with first:
        with pytest.raises(Timeout):
            FileLock(path).acquire(timeout=0)
    with first:  # released, then taken again
        assert first.is_locked
    assert not first.is_locked


def test_the_review_runtime_imports_neither_filelock_nor_asyncio() -> None:
    """Their import is most of what this module saves at every command's start-up."""
    probe = (
        "import sys\nimport aidlc_review.review.run.api, aidlc_review.sensors.api\n"
        "import aidlc_review.cli.cmd_bolt\n"
        "print(sorted(m for m in ('filelock', 'asyncio', 'jsonschema') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.stdout == "[]\n", done.stderr
