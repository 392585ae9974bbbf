"""One agent turn's pipes: the brief in, the answer and stderr out, each within a bound.

An agent is untrusted, so what it prints is read with a cap: an answer past
``MAX_ANSWER_BYTES`` is no answer (the turn is stopped at once and recorded as overflowing,
so the reviewer is "unavailable"), and of its stderr only the last ``MAX_STDERR_BYTES`` are
kept. A reviewer flooding gigabytes costs the review a few megabytes of memory, not the
machine. Once the process has exited its pipes are read for ``drain`` seconds more at most:
a process that escaped the turn and holds stdout open must not keep the review waiting.
"""

from __future__ import annotations

import os
import selectors
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass

MAX_ANSWER_BYTES = 16 * 1024 * 1024
MAX_STDERR_BYTES = 1024 * 1024
CHUNK = 64 * 1024


@dataclass(frozen=True)
class Answer:
    stdout: bytes
    stderr: bytes
    timed_out: bool
    overflowed: bool = False  # the answer passed MAX_ANSWER_BYTES: the turn was stopped
    gave_up: bool = False  # ``hopeless`` said the turn could only fail: it was stopped


def exchange(
    process: subprocess.Popen[bytes],
    brief: bytes,
    timeout: float,
    stop: Callable[[subprocess.Popen[bytes]], None],
    poll: float = 0.1,
    drain: float = 0.5,
    hopeless: Callable[[bytes], bool] | None = None,
) -> Answer:
    """The agent's output once it is done, or a timed-out or overflowing answer; or, when
    ``hopeless`` says of the output so far that the turn can only fail, what it printed."""
    assert process.stdin and process.stdout and process.stderr
    deadline = time.monotonic() + timeout
    out, err = bytearray(), bytearray()
    pending = memoryview(brief)
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ, out)
        selector.register(process.stderr, selectors.EVENT_READ, err)
        os.set_blocking(process.stdin.fileno(), False)
        selector.register(process.stdin, selectors.EVENT_WRITE)
        exited: float | None = None
        while selector.get_map():
            now = time.monotonic()
            if now >= deadline:
                stop(process)
                return Answer(b"", bytes(err[-MAX_STDERR_BYTES:]), True)
            if process.poll() is not None:
                exited = now if exited is None else exited
                if now - exited >= drain:
                    break
            for key, _ in selector.select(min(poll, deadline - now)):
                if key.fileobj is process.stdin:
                    pending = _send(selector, process, pending)
                    continue
                chunk = os.read(key.fd, CHUNK)
                if not chunk:
                    selector.unregister(key.fileobj)
                    continue
                key.data.extend(chunk)
                if key.data is out and len(out) > MAX_ANSWER_BYTES:
                    stop(process)
                    return Answer(b"", bytes(err[-MAX_STDERR_BYTES:]), False, overflowed=True)
                if key.data is out and hopeless is not None and hopeless(bytes(out[-CHUNK:])):
                    stop(process)
                    return Answer(bytes(out), bytes(err[-MAX_STDERR_BYTES:]), False, gave_up=True)
                if key.data is err and len(err) > 2 * MAX_STDERR_BYTES:
                    del err[:-MAX_STDERR_BYTES]
    if exited is None:
        process.wait()
    return Answer(bytes(out), bytes(err[-MAX_STDERR_BYTES:]), False)


def _send(
    selector: selectors.BaseSelector, process: subprocess.Popen[bytes], pending: memoryview
) -> memoryview:
    """Write what the pipe takes of the brief; close stdin once it is all sent (or the agent
    stopped reading)."""
    assert process.stdin
    try:
        written = os.write(process.stdin.fileno(), pending[:CHUNK])
    except BlockingIOError:
        return pending
    except (BrokenPipeError, OSError):
        written = len(pending)
    pending = pending[written:]
    if not pending:
        selector.unregister(process.stdin)
        process.stdin.close()
    return pending
