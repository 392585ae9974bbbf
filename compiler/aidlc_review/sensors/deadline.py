"""Work that must end: run in a forked child, results streamed back, killed at the deadline.

detect-secrets runs in process (its plugins are Python and regular expressions), and the
wrong few kilobytes keep its keyword detector busy for minutes: ``secret_password_token_``
repeated, 5 KB take 3.5 s and 20 KB over a minute. A thread cannot be stopped, so such work
runs in a child forked from this process. The child inherits what the parent set up
(detect-secrets' settings, its loaded plugins, the current directory), so it costs a fork
and no start-up. It runs in its own process group and writes one JSON line per finished
item. When the time is up the whole group is killed, a pool the child started with it,
and the caller learns which items were finished; the rest were not checked.

A process about to need what is slow to load (detect-secrets' plugins, before a review's
first tool starts) can fork a child early, while it still runs one thread
(``fork_early``): the child loads it on the other core while the process imports the rest,
then takes the items of one ``run`` through a pipe and answers as above.

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
_FORKING = threading.RLock()  # re-entrant: an import under ``no_fork`` may load more


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


def fork_early(prepare: Callable[[], object], work: Work) -> EarlyChild | None:
    """A child forked now that runs ``prepare`` (imports and loads what ``work`` needs) on
    another core while this process goes on, then waits for the items of one ``run``.
    Only while this process runs a single thread (no lock or import of another thread can
    be caught half-held in the child) and may run on two cores or more (on one, the child
    would only take turns with it). None otherwise, or when the fork fails."""
    if threading.active_count() != 1 or len(os.sched_getaffinity(0)) < 2:
        return None
    requests, to_child = os.pipe()
    results, from_child = os.pipe()
    pipes = (requests, to_child, results, from_child)
    try:  # a pipe on 0, 1 or 2 (started with one closed) would be lost to /dev/null
        pid = os.fork() if min(pipes) > 2 else -1
    except OSError:
        pid = -1
    if pid < 0:
        for fd in pipes:
            os.close(fd)
        return None
    if pid == 0:  # pragma: no cover - the child; coverage.py does not follow a fork
        _early_child(prepare, work, requests, from_child)
    os.close(requests)
    os.close(from_child)
    with contextlib.suppress(OSError):
        os.setpgid(pid, pid)
    return EarlyChild(pid, to_child, results)


@dataclass
class EarlyChild:
    """``fork_early``'s child: ``run`` once (then it is gone), or ``close`` unused."""

    pid: int
    to_child: int
    from_child: int
    done: bool = False

    def run(self, items: Sequence[Any], seconds: float, per_item: bool = False) -> Finished:
        """The items' results as ``run_limited`` gives them; ``seconds`` also bounds the wait
        for the child to finish preparing and take the items."""
        if self.done:
            raise WorkerFailed("the early worker was used already")
        payload = json.dumps(list(items)).encode()
        try:  # its length first: a fork of this process may hold the pipe open (no EOF)
            if not _hand_over(self.to_child, len(payload).to_bytes(8, "big") + payload, seconds):
                return Finished({}, True)
            results, failure, timed_out = _collect(self.from_child, seconds, per_item)
        except BrokenPipeError:
            raise WorkerFailed("the worker died before it finished") from None
        finally:
            self.close()
        if failure is not None and not timed_out:
            raise WorkerFailed(failure)
        return Finished(results, timed_out)

    def close(self) -> None:
        """Kill and reap the child, used or not."""
        if self.done:
            return
        self.done = True
        for fd in (self.to_child, self.from_child):
            if fd >= 0:
                os.close(fd)
        _kill_group(self.pid)


class EarlySlot:
    """At most one ``fork_early`` child at a time, taken by whichever thread first has
    items for it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._child: EarlyChild | None = None

    def start(self, prepare: Callable[[], object], work: Work) -> None:
        with self._lock:
            if self._child is None:
                self._child = fork_early(prepare, work)

    def take(self) -> EarlyChild | None:
        with self._lock:
            child, self._child = self._child, None
        return child

    def stop(self) -> None:
        child = self.take()
        if child is not None:
            child.close()


def _hand_over(fd: int, data: bytes, seconds: float) -> bool:
    """Write ``data`` to the child's pipe; False when it takes no more in time (still
    preparing, or stuck)."""
    deadline = time.monotonic() + seconds
    os.set_blocking(fd, False)
    while data:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([], [fd], [], left)[1]:
            return False
        data = data[os.write(fd, data) :]
    return True


def _early_child(  # pragma: no cover - the child
    prepare: Callable[[], object], work: Work, requests: int, fd: int
) -> None:
    try:
        os.setpgid(0, 0)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        _only_fds(requests, fd)  # the caller's pipes (stdout, stderr) never wait on the child
        prepare()
        with os.fdopen(requests, "rb") as incoming:
            size = int.from_bytes(incoming.read(8), "big")  # 0 at EOF: closed unused
            items = incoming.read(size) if size else b""
        if len(items) == size > 0:
            _child(work, json.loads(items), fd)
    finally:
        os._exit(0)


def _only_fds(*keep: int) -> None:  # pragma: no cover - the child
    """stdin, stdout and stderr on /dev/null, and no other descriptor open but ``keep``."""
    null = os.open(os.devnull, os.O_RDWR)
    for std in (0, 1, 2):
        os.dup2(null, std)
    at = 3
    for fd in sorted(keep):
        os.closerange(at, fd)
        at = fd + 1
    os.closerange(at, os.sysconf("SC_OPEN_MAX"))


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
