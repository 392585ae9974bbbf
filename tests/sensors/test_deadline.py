"""Work run in a forked child: results as they finish, a kill at the deadline, failures named."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor

import pytest

from aidlc_review.sensors.deadline import WorkerFailed, run_limited


def sleepy(items: Sequence[float]) -> Iterator[tuple[int, float]]:
    for index, seconds in enumerate(items):
        time.sleep(seconds)
        yield index, seconds * 2


def test_results_come_back_in_full_within_the_limit() -> None:
    done = run_limited(sleepy, [0, 0.01], 5)
    assert (done.results, done.timed_out) == ({0: 0, 1: 0.02}, False)


def test_at_the_deadline_the_child_is_killed_and_what_it_finished_is_kept() -> None:
    started = time.monotonic()
    done = run_limited(sleepy, [0, 30, 0], 0.3)
    assert time.monotonic() - started < 3
    assert (done.results, done.timed_out) == ({0: 0}, True)


def test_a_limit_per_item_restarts_the_clock_for_each_item() -> None:
    done = run_limited(sleepy, [0.3, 0.3, 0.3], 0.6, per_item=True)  # 0.9 s in all
    assert (done.results, done.timed_out) == ({0: 0.6, 1: 0.6, 2: 0.6}, False)


def raising(items: Sequence[str]) -> Iterator[tuple[int, str]]:
    yield 0, items[0]
    raise ValueError(f"cannot read {items[1]}")


def dying(items: Sequence[str]) -> Iterator[tuple[int, str]]:
    yield 0, items[0]
    os._exit(9)


def test_a_child_that_raises_or_dies_is_a_failure_never_a_result() -> None:
    with pytest.raises(WorkerFailed, match=r"^ValueError: cannot read b\.py$"):
        run_limited(raising, ["a.py", "b.py"], 5)
    with pytest.raises(WorkerFailed, match="^the worker died before it finished$"):
        run_limited(dying, ["a.py", "b.py"], 5)


def test_no_items_fork_nothing() -> None:
    done = run_limited(sleepy, [], 0.001)
    assert (done.results, done.timed_out) == ({}, False)


def test_threads_forking_at_once_each_get_their_results() -> None:
    # the Bolt pipeline reviews units on threads; filelock (imported here) guards every fork
    import filelock  # noqa: F401

    def many(_: int) -> list[dict[int, float]]:
        return [run_limited(sleepy, [0.0, 0.0], 5).results for _ in range(12)]

    with ThreadPoolExecutor(4) as pool:
        runs = [result for results in pool.map(many, range(4)) for result in results]
    assert runs == [{0: 0.0, 1: 0.0}] * 48


def _module_seen(names: Sequence[str]) -> Iterator[tuple[int, bool]]:
    import sys

    for index, name in enumerate(names):
        yield index, name in sys.modules


def test_no_fork_lands_while_another_thread_is_importing_what_the_child_runs() -> None:
    """A child forked in the middle of another thread's import would inherit the module
    half-made (``KeyError: 'detect_secrets'``): a fork waits until the import is done."""
    import sys

    from aidlc_review.sensors.deadline import no_fork

    name = "_aidlc_test_half_imported"
    started, forked_at = time.monotonic(), []

    def importing() -> None:
        with no_fork():
            time.sleep(0.5)  # the import takes its time
            sys.modules[name] = type(sys)(name)

    with ThreadPoolExecutor(2) as pool:
        done = pool.submit(importing)
        time.sleep(0.1)
        seen = run_limited(_module_seen, [name], 5.0).results
        forked_at.append(time.monotonic() - started)
        done.result()
    del sys.modules[name]
    assert seen == {0: True}  # the child saw the import finished, never half of it
    assert forked_at[0] >= 0.5
