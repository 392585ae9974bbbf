"""``deadline.fork_early``: a child forked while the process runs one thread, on a machine
it may use two cores of, loads what its work needs on the other core, then answers one
``run`` as ``run_limited`` does; a child that dies, hangs or is never used costs an answer
(the caller checks in process), never a process left behind or the caller's output held
open.

Each spec runs in a fresh process: a test runner's worker runs threads, where no early
child is forked (the last spec)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from typing import Any

from aidlc_review.sensors.deadline import fork_early

PROGRAM = """
import json, os, sys, time
from aidlc_review.sensors.deadline import WorkerFailed, fork_early

def prepare():
    time.sleep(float(os.environ.get("PREPARE_SECONDS", "0")))
    sys.modules["_loaded_in_the_child"] = sys

def work(items):
    for index, item in enumerate(items):
        if item == "die":
            os._exit(9)
        yield index, [item.upper(), "_loaded_in_the_child" in sys.modules]

child = fork_early(prepare, work)
said = {"forked": child is not None, "loaded_here": "_loaded_in_the_child" in sys.modules}
if child is not None and os.environ.get("USE", "yes") == "yes":
    started = time.monotonic()
    try:
        done = child.run(sys.argv[1:], float(os.environ.get("LIMIT", "10")), per_item=True)
        said.update(results=done.results, timed_out=done.timed_out)
    except WorkerFailed as exc:
        said.update(failed=str(exc))
    said["seconds"] = time.monotonic() - started
elif child is not None and os.environ.get("USE") == "close":
    child.close()
try:
    os.waitpid(-1, os.WNOHANG)
    said["children_left"] = True
except ChildProcessError:
    said["children_left"] = False
print(json.dumps(said))
"""


def fresh_process(*items: str, **env: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM, *items],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **env},
        timeout=60,
    )
    said: dict[str, Any] = json.loads(done.stdout)
    return said


def test_the_child_loads_what_the_work_needs_and_answers_one_run() -> None:
    said = fresh_process("a.py", "b.py")
    assert said["forked"] is True
    assert said["results"] == {"0": ["A.PY", True], "1": ["B.PY", True]}
    assert said["loaded_here"] is False  # loaded in the child, not in the caller
    assert said["children_left"] is False  # reaped once it answered


def test_a_child_that_dies_is_a_failure_and_is_reaped() -> None:
    said = fresh_process("a.py", "die", "c.py")
    assert said["failed"] == "the worker died before it finished"
    assert said["children_left"] is False


def test_a_child_still_preparing_at_the_deadline_is_killed_with_nothing_answered() -> None:
    said = fresh_process("a.py", PREPARE_SECONDS="30", LIMIT="0.5")
    assert (said["results"], said["timed_out"]) == ({}, True)
    assert said["seconds"] < 10
    assert said["children_left"] is False


def test_a_child_closed_unused_is_reaped() -> None:
    said = fresh_process(USE="close", PREPARE_SECONDS="30")
    assert (said["forked"], said["children_left"]) == (True, False)


def test_a_child_left_unused_does_not_hold_the_callers_output_open() -> None:
    started = time.monotonic()
    said = fresh_process(USE="no", PREPARE_SECONDS="8")  # exits, the child still preparing
    assert said["forked"] is True
    assert time.monotonic() - started < 6  # stdout reached its end without the child


def test_a_process_allowed_one_core_forks_no_early_child() -> None:
    done = subprocess.run(
        ["taskset", "-c", "0", sys.executable, "-c", PROGRAM, "a.py"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert json.loads(done.stdout)["forked"] is False


def test_a_process_running_threads_forks_no_early_child() -> None:
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert fork_early(lambda: None, lambda items: iter(())) is None
    finally:
        stop.set()
        other.join()
