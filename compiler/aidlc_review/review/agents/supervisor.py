"""The supervisor of one agent turn: no process the agent starts outlives the turn (Linux).

An agent is an untrusted program run as the same user. A grandchild of it can call
``setsid()`` (a new session and process group, out of reach of ``os.killpg``) or fork
twice, and go on editing the workspace after the review has recorded the turn. So
the review starts the agent through this process, which first makes itself a child
subreaper (``prctl(PR_SET_CHILD_SUBREAPER)``): every orphan of the agent is then
re-parented to it instead of to init, and stays its descendant whatever session or
group it moves to. It starts the agent with the inherited stdin, stdout and stderr,
waits for it, then kills every remaining descendant (found by walking ``/proc``)
until none is left, and exits with the agent's exit status, or 128 + the signal that
ended it. SIGTERM (the review's timeout) and the review's own death
(``PR_SET_PDEATHSIG``) end the turn the same way, with status 143.

What it cannot stop: the agent runs as the same user, so it can SIGKILL this process
(the review then sees status 137 and counts the turn as failed, but orphans from then
on go to init), or have a process started outside its tree (cron, ``systemd-run
--user``). Where the review is not on Linux it kills the agent's process group instead
(``review.agents.adapters``), which a ``setsid()`` grandchild escapes.

Run as ``python -I -S supervisor.py REPORT_FD ARGV...``. If the agent cannot be
started, its errno is written to REPORT_FD (the review names the failure as if it
had started the agent itself) and the exit status is 127. Import-light on purpose
(os, sys, signal, ctypes; ``time`` is built in and loaded at start-up anyway): it
starts once per agent turn.
"""

import ctypes
import os
import sys
import time

TYPE_CHECKING = False  # typing itself is too heavy to import here
if TYPE_CHECKING:
    import signal
    from typing import NoReturn
else:  # the C module behind ``signal``: its enum wrappers cost more than all the rest here
    import _signal as signal

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
CANNOT_START = 127
# the signals Python ignores for itself, which a program it starts must get back
RESTORED_SIGNALS = (signal.SIGPIPE, signal.SIGXFSZ)


class _Stopped(BaseException):
    """SIGTERM arrived: the turn is over, whatever the agent is doing."""


def main(argv: list[str]) -> int:
    report_fd, agent = int(argv[0]), argv[1:]
    os.set_inheritable(report_fd, False)  # the agent must not hold the review's pipe
    signal.signal(signal.SIGTERM, _stop)
    libc = ctypes.CDLL(None)
    _prctl(libc, PR_SET_CHILD_SUBREAPER, 1)
    # sent when the review thread that started this one ends; it waits out the whole turn
    _prctl(libc, PR_SET_PDEATHSIG, signal.SIGTERM)
    status = 128 + signal.SIGTERM
    try:
        status = _run(agent, report_fd)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # the turn is ending anyway
    except _Stopped:  # raised once at most: the handler ignores SIGTERM from then on
        pass
    end_descendants(os.getpid())
    return status


def _stop(signum: int, frame: object) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise _Stopped


def _prctl(libc: ctypes.CDLL, option: int, value: int) -> None:
    # a kernel without it (before 3.4) leaves only the descendants still attached: those
    # are killed all the same, a setsid() orphan is not
    libc.prctl(option, value, 0, 0, 0)


def _run(agent: list[str], report_fd: int) -> int:
    pid = os.fork()
    if pid == 0:
        _become(agent, report_fd)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    return 128 - code if code < 0 else code


def _become(agent: list[str], report_fd: int) -> "NoReturn":
    """In the forked child: exec the agent, or write why it cannot be to ``report_fd``
    (closed on exec) and exit. Not posix_spawn: glibc's leaves its internal signals
    ignored in the program it starts, which a program started by the review never had."""
    try:
        for signum in (signal.SIGTERM, *RESTORED_SIGNALS):
            signal.signal(signum, signal.SIG_DFL)
        os.execvp(agent[0], agent)
    except OSError as exc:
        os.write(report_fd, str(exc.errno).encode())
    finally:
        os._exit(CANNOT_START)  # whatever happened, the child never runs the supervisor


def end_descendants(root: int) -> None:
    """SIGKILL every living descendant of ``root`` (this process) and reap them, until none
    is left: a process that forks while the others are killed is found the next round."""
    # orphans come to this subreaper, so with no child left no descendant is left either:
    # an agent that leaves nothing behind costs no walk of /proc at all
    while _reap():
        if not [pid for pid in descendants(root) if _kill(pid)]:
            # what is left ended since the reap (zombies, to reap, not to kill) or is not
            # ours to kill (a set-uid program)
            _reap()
            return
        time.sleep(0.001)  # about how long SIGKILL takes to end them


def descendants(root: int) -> list[int]:
    """The living (not zombie) processes under ``root``, from one walk of ``/proc``."""
    children: dict[int, list[tuple[int, bool]]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            entry = _stat(name)
            if entry is not None:
                children.setdefault(entry[1], []).append((int(name), entry[0]))
    found, queue = [], [root]
    while queue:
        for pid, zombie in children.get(queue.pop(), []):
            queue.append(pid)
            if not zombie:
                found.append(pid)
    return found


def _stat(pid: str) -> tuple[bool, int] | None:
    """(is a zombie, parent pid) of one process, or None once it is gone."""
    try:
        fd = os.open(f"/proc/{pid}/stat", os.O_RDONLY)
        try:
            data = os.read(fd, 4096)
        finally:
            os.close(fd)
        # the command name in parentheses may hold spaces and parentheses itself
        state, ppid = data[data.rindex(b")") + 2 :].split()[:2]
    except (OSError, ValueError):  # gone between the listing and the read
        return None
    return state == b"Z", int(ppid)


def _kill(pid: int) -> bool:
    try:
        os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        return False  # gone already, or not ours to kill (a set-uid program)
    return True


def _reap() -> bool:
    """Reap every child that has ended; whether any child is left."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return False
        if pid == 0:
            return True


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
