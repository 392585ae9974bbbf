"""Finding and running external tools: argv lists, no shell, a timeout, the whole group killed.

This is the only place in the sensors that starts a process. File names always
follow ``--`` so a claimed file called ``--help`` or ``-rf`` stays a file name.

Tools run in their own session, so a Ctrl-C at the terminal reaches only this process.
When the sensors run on threads (``sensors.api``), the interrupted thread stops the
others' tools with ``stop_threads``: their groups are killed and those threads may start
no new tool until ``release_threads``.
"""

from __future__ import annotations

import os
import selectors
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from aidlc_review.sensors.installed_version import installed_version

_VERSIONS: dict[tuple[str, int, int], str] = {}
_LIVE: dict[int, set[subprocess.Popen[bytes]]] = {}  # thread ident -> the tools it runs
_STOPPED: set[int] = set()  # threads of an interrupted run: no new tools
_ON_START: list[Callable[[], None]] = []  # told once, when the next tool has started
_LIVE_LOCK = threading.Lock()


class Stopped(Exception):
    """This thread's run was interrupted (``stop_threads``): no tool is started for it."""


def stop_threads(idents: frozenset[int]) -> None:
    """Kill the process group of every tool these threads are running, and start no more.
    Under the lock: a tool still listed has not been reaped by its own thread."""
    with _LIVE_LOCK:
        _STOPPED.update(idents)
        for proc in (proc for ident in idents for proc in _LIVE.get(ident, ())):
            _signal_group(proc)


def on_next_start(callback: Callable[[], None]) -> Callable[[], None]:
    """Call ``callback`` once, when the next tool (on any thread) has started; returns what
    forgets it unused. A pass loads what follows its tools then (``run.engine``): before,
    the interpreter is busy with the work that starts them."""
    with _LIVE_LOCK:
        _ON_START.append(callback)

    def forget() -> None:
        with _LIVE_LOCK:
            if callback in _ON_START:
                _ON_START.remove(callback)

    return forget


def release_threads(idents: frozenset[int]) -> None:
    """Forget a finished run's threads (a later thread may get the same ident)."""
    with _LIVE_LOCK:
        _STOPPED.difference_update(idents)


@dataclass(frozen=True)
class ToolRun:
    returncode: int | None  # None when killed: after the timeout, or flooding
    stdout: str
    stderr: str
    flooded: str = ""  # why it was stopped for printing too much

    @property
    def timed_out(self) -> bool:
        return self.returncode is None and not self.flooded


def find_tool(name: str, search_path: str | None = None) -> Path | None:
    """The tool on PATH, else next to this interpreter (a venv's ``bin/`` is not always on PATH).

    ``search_path`` (``os.pathsep``-separated) replaces both: a run can pin its tools.
    """
    if search_path is not None:
        pinned = shutil.which(name, path=search_path)
        return Path(pinned) if pinned else None
    found = shutil.which(name)
    if found:
        return Path(found)
    beside = Path(sys.executable).parent / name
    if beside.is_file() and os.access(beside, os.X_OK):
        return beside
    return None


HEARTBEAT_SECONDS = 10.0


def run_tool(
    argv: list[str],
    cwd: Path,
    timeout: float,
    env: dict[str, str] | None = None,
    heartbeat: Callable[[float], None] | None = None,
    started: Callable[[], None] | None = None,
) -> ToolRun:
    """Run ``argv`` in its own session; on timeout kill the whole process group.
    ``started`` is called once it runs; ``heartbeat`` is told the seconds so far every
    ``HEARTBEAT_SECONDS`` while it runs."""
    merged = {**os.environ, **(env or {})}
    ident = threading.get_ident()
    if ident in _STOPPED:
        raise Stopped(f"not started, the run was interrupted: {Path(argv[0]).name}")
    proc = subprocess.Popen(  # noqa: S603 - argv list, never a shell
        argv,
        cwd=cwd,
        env=merged,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    with _LIVE_LOCK:
        _LIVE.setdefault(ident, set()).add(proc)
        stopped = ident in _STOPPED  # stopped while it started: it must not run on
        told, _ON_START[:] = _ON_START[:], []
    if stopped:
        _signal_group(proc)
    try:
        for tell in [*told, *([started] if started is not None else [])]:
            tell()
        out, err = _wait(proc, timeout, heartbeat)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        return ToolRun(None, "", "")
    except Flooded as exc:
        _kill_group(proc)
        return ToolRun(None, "", "", flooded=str(exc))
    finally:
        with _LIVE_LOCK:  # unlisted before it is reaped: stop_threads signals listed ones
            _LIVE[ident].discard(proc)
            if not _LIVE[ident]:
                del _LIVE[ident]
        # also after a normal exit: a child the tool left in the background must not
        # outlive the check (the group id stays reserved while any member is alive)
        _kill_group(proc)
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
    return ToolRun(proc.returncode, out.decode(errors="replace"), err.decode(errors="replace"))


class Flooded(Exception):
    """The tool printed more than ``MAX_STDOUT_BYTES``: stopped, its output not read."""


MAX_STDOUT_BYTES = 128 * 1024 * 1024  # eslint JSON with sources, thousands of files, fits
MAX_STDERR_BYTES = 1024 * 1024  # only the tail is kept: the reason a tool failed is at its end
CHUNK = 256 * 1024


def _wait(
    proc: subprocess.Popen[bytes], timeout: float, heartbeat: Callable[[float], None] | None
) -> tuple[bytes, bytes]:
    """The tool's stdout and the tail of its stderr once it exits: ``TimeoutExpired`` after
    ``timeout``, ``Flooded`` past ``MAX_STDOUT_BYTES`` (memory stays bounded whatever a test
    suite prints). ``heartbeat`` hears the seconds so far every ``HEARTBEAT_SECONDS``."""
    assert proc.stdout is not None and proc.stderr is not None
    started = time.monotonic()
    beat = started + HEARTBEAT_SECONDS
    out, err = bytearray(), bytearray()
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stdout, selectors.EVENT_READ, out)
        selector.register(proc.stderr, selectors.EVENT_READ, err)
        while selector.get_map():
            now = time.monotonic()
            if now - started >= timeout:
                raise subprocess.TimeoutExpired(proc.args, timeout)
            if heartbeat is not None and now >= beat:
                heartbeat(now - started)
                beat = now + HEARTBEAT_SECONDS
            wait = min(beat - now, timeout - (now - started))
            for key, _ in selector.select(max(wait, 0.0)):
                chunk = os.read(key.fd, CHUNK)
                if not chunk:
                    selector.unregister(key.fileobj)
                    continue
                key.data.extend(chunk)
                if len(out) > MAX_STDOUT_BYTES:
                    raise Flooded(f"printed more than {MAX_STDOUT_BYTES >> 20} MiB")
                if len(err) > 2 * MAX_STDERR_BYTES:
                    del err[:-MAX_STDERR_BYTES]
    proc.wait(timeout=max(timeout - (time.monotonic() - started), 0.0))
    return bytes(out), bytes(err[-MAX_STDERR_BYTES:])


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    _signal_group(proc)
    proc.wait()


def _signal_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass  # the whole group is gone already


def tool_version(path: Path, argv: list[str] | None, timeout: float = 30.0) -> str:
    """The tool's version: read from the package that installed it when that lists this very
    file (``installed_version``: no start-up paid), else its ``--version`` line; remembered
    per (path, mtime, size) for this process."""
    if not argv:
        return "unknown"
    stat = path.stat()
    key = (str(path), stat.st_mtime_ns, stat.st_size)
    if key not in _VERSIONS and (known := installed_version(path)) is not None:
        _VERSIONS[key] = known
    if key not in _VERSIONS:
        run = run_tool([str(path), *argv[1:]], Path.cwd(), timeout)
        text = (run.stdout or run.stderr).strip().splitlines()
        _VERSIONS[key] = text[0].strip() if run.returncode == 0 and text else "unknown"
    return _VERSIONS[key]


def shown_command(argv: list[str], files: list[str]) -> str:
    """How a command is shown in results: the tool's name, not its absolute path; files counted."""
    head = [Path(argv[0]).name, *argv[1:]]
    if not files:
        return " ".join(head)
    tail = files[0] if len(files) == 1 else f"<{len(files)} files>"
    return " ".join([*head, "--", tail])


def last_line(text: str, limit: int = 300) -> str:
    """A short excerpt of tool output for a reason string."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:limit] if lines else "no output"


def tail_lines(text: str, count: int = 8, limit: int = 1200) -> str:
    """The last non-blank lines of tool output, joined with `` | `` and capped (callers
    redact): enough of a traceback to name its cause."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return " | ".join(lines[-count:])[-limit:] if lines else "no output"
