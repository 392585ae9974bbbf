"""Work that must end: run in a forked child, results streamed back, killed at the deadline.

detect-secrets runs in process (its plugins are Python and regular expressions), and the
wrong few kilobytes keep its keyword detector busy for minutes: ``secret_password_token_``
repeated, 5 KB take 3.5 s and 20 KB over a minute. A thread cannot be stopped, so such work
runs in a child forked from this process. The child inherits what the parent set up
(detect-secrets' settings, its loaded plugins, the current directory), so it costs a fork
and no start-up. It runs in its own process group and writes one JSON line per finished
item. When the time is up the whole group is killed, a pool the child started with it,
and the caller learns which items were finished; the rest were not checked.

Forks are taken one at a time (``_FORKING``): the Bolt pipeline reviews units on threads,
and a library's fork guard (filelock's, when a host process imports it) refuses an
``os.fork`` while another thread is inside one. The same lock keeps a fork from landing in
the middle of another thread's import of what the child runs (``no_fork``): a child
inheriting a half-imported ``detect_secrets`` fails with ``KeyError: 'detect_secrets'``.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import select
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

# the child's work: given the items, yield (index, JSON-able result) as each is done
Work = Callable[[Sequence[Any]], Iterator[tuple[int, Any]]]
_DONE, _FAILED = -1, -2  # the child's last line: its indexes are never negative
_FORKING = threading.Lock()


@contextlib.contextmanager
def no_fork() -> Iterator[None]:
    """No ``run_limited`` forks while this is held: import and load what a child inherits
    (detect-secrets, its plugins and filters) inside it. Never call ``run_limited`` here."""
    with _FORKING:
        yield


class WorkerFailed(Exception):
    """The child raised or died before the deadline: nothing it did not report is known."""


@dataclass(frozen=True)
class Finished:
    results: dict[int, Any]  # index -> result, for the items done in time
    timed_out: bool


def run_limited(
    work: Work, items: Sequence[Any], seconds: float, per_item: bool = False
) -> Finished:
    """Run ``work`` over ``items`` in a forked child for at most ``seconds``.

    With ``per_item`` each finished item restarts the clock (a limit per item, not for all).
    """
    if not items:
        return Finished({}, False)
    read_end, write_end = os.pipe()
    with _FORKING:
        pid = os.fork()
    if pid == 0:  # pragma: no cover - the child; coverage.py does not follow a fork
        os.close(read_end)
        _child(work, items, write_end)
    os.close(write_end)
    with contextlib.suppress(OSError):
        os.setpgid(pid, pid)  # also set by the child: whichever runs first
    try:
        results, failure, timed_out = _collect(read_end, seconds, per_item)
    finally:
        os.close(read_end)
        _kill_group(pid)
    if failure is not None and not timed_out:
        raise WorkerFailed(failure)
    return Finished(results, timed_out)


def _collect(fd: int, seconds: float, per_item: bool) -> tuple[dict[int, Any], str | None, bool]:
    results: dict[int, Any] = {}
    deadline = time.monotonic() + seconds
    pending = b""
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            return results, None, True
        chunk = os.read(fd, 1 << 16)
        if not chunk:  # the child always ends with _DONE or _FAILED: it was killed
            return results, "the worker died before it finished", False
        *lines, pending = (pending + chunk).split(b"\n")
        for line in lines:
            index, result = json.loads(line)
            if index in (_DONE, _FAILED):
                return results, None if index == _DONE else str(result), False
            results[index] = result
            if per_item:
                deadline = time.monotonic() + seconds


def _child(work: Work, items: Sequence[Any], fd: int) -> None:  # pragma: no cover - the child
    status = 0
    try:
        os.setpgid(0, 0)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        gc.disable()  # a collection would touch, and so copy, every page the parent shares
        with os.fdopen(fd, "wb") as out:
            try:
                for index, result in work(items):
                    out.write(json.dumps([index, result]).encode() + b"\n")
                    out.flush()
                out.write(json.dumps([_DONE, None]).encode() + b"\n")
            except Exception as exc:  # the parent reports it; the child must not unwind
                out.write(json.dumps([_FAILED, f"{type(exc).__name__}: {exc}"]).encode() + b"\n")
                status = 1
    finally:
        os._exit(status)


def _kill_group(pid: int) -> None:
    """Kill the child's group (a pool it started too), whether it finished or not, and reap it."""
    for kill in (os.killpg, os.kill):
        with contextlib.suppress(OSError):
            kill(pid, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)
