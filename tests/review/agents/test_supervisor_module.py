"""``review.agents.supervisor``: the agent's status passes through; nothing of it outlives it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from aidlc_review.review.agents import supervisor

SUPERVISOR = supervisor.__file__  # run as the review runs it (Linux: /proc, prctl)
# a grandchild that leaves the agent's session (out of reach of killpg) and would live on
ESCAPES = (
    "import os, subprocess, sys, pathlib\n"
    "child = subprocess.Popen([sys.executable, '-c', "
    "'import os, time; os.setsid(); time.sleep(30)'], "
    "stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)\n"
    "pathlib.Path(sys.argv[1]).write_text(f'{os.getpid()} {child.pid}')\n"
)


def _supervised(agent: list[str], stdin: bytes | None = None) -> tuple[int, bytes, bytes, bytes]:
    """Run ``agent`` under the supervisor: its status, stdout, stderr, and what it reported."""
    read, write = os.pipe()
    try:
        done = subprocess.run(
            [sys.executable, "-I", "-S", SUPERVISOR, str(write), *agent],
            pass_fds=(write,),
            capture_output=True,
            timeout=120,  # a bound for a hung run, not a speed claim: a loaded machine is slow
            input=stdin,
        )
    finally:
        os.close(write)
    with os.fdopen(read, "rb") as report:
        return done.returncode, done.stdout, done.stderr, report.read()


def _python(code: str, *args: str) -> list[str]:
    return [sys.executable, "-c", code, *args]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _pids(path: Path) -> list[int]:
    deadline = time.monotonic() + 10
    while not (path.is_file() and path.read_text().strip()):
        assert time.monotonic() < deadline, f"{path} was never written"
        time.sleep(0.01)
    return [int(word) for word in path.read_text().split()]


def _state(pid: int) -> bytes:
    data = Path(f"/proc/{pid}/stat").read_bytes()
    return data[data.rindex(b")") + 2 :].split()[0]


def test_the_agents_exit_status_is_the_supervisors():
    assert _supervised(_python("import sys; sys.exit(3)")) == (3, b"", b"", b"")
    assert _supervised(_python("pass"))[0] == 0


def test_an_agent_ended_by_a_signal_is_reported_as_128_plus_the_signal():
    killed = _python("import os, signal; os.kill(os.getpid(), signal.SIGKILL)")
    terminated = _python("import os, signal; os.kill(os.getpid(), signal.SIGTERM)")

    assert _supervised(killed)[0] == 128 + signal.SIGKILL
    assert _supervised(terminated)[0] == 128 + signal.SIGTERM


def test_the_agent_reads_and_writes_the_supervisors_own_stdin_stdout_and_stderr():
    echo = _python(
        "import sys; print('got', sys.stdin.read().strip()); print('note', file=sys.stderr)"
    )

    assert _supervised(echo, b"the brief\n") == (0, b"got the brief\n", b"note\n", b"")


def test_an_agent_that_cannot_be_started_reports_its_errno_and_exits_127(tmp_path):
    not_executable = tmp_path / "agent.sh"
    not_executable.write_text("#!/bin/sh\n")

    assert _supervised([str(tmp_path / "missing")]) == (
        supervisor.CANNOT_START,
        b"",
        b"",
        str(2).encode(),  # ENOENT
    )
    status, _, _, report = _supervised([str(not_executable)])
    assert (status, int(report)) == (127, 13)  # EACCES


def test_the_agent_does_not_inherit_the_report_pipe():
    read, write = os.pipe()
    try:
        probe = "import os, sys\ntry: os.fstat(int(sys.argv[1]))\nexcept OSError: sys.exit(9)\n"
        done = subprocess.run(
            [sys.executable, "-I", "-S", SUPERVISOR, str(write), *_python(probe, str(write))],
            pass_fds=(write,),
            timeout=120,  # a bound for a hung run, not a speed claim: a loaded machine is slow
        )
    finally:
        os.close(write)
        os.close(read)
    assert done.returncode == 9


def test_the_agent_gets_back_the_signals_python_ignores():
    status, out, _, _ = _supervised(["cat", "/proc/self/status"])

    ignored = int(out.decode().split("SigIgn:")[1].split()[0], 16)
    assert status == 0
    for signum in supervisor.RESTORED_SIGNALS:
        assert not ignored & (1 << (signum - 1)), f"signal {signum} is still ignored"


def test_a_grandchild_that_left_the_agents_session_is_killed_when_the_agent_exits(tmp_path):
    pids = tmp_path / "pids"

    status, _, _, _ = _supervised(_python(ESCAPES, str(pids)))

    agent, grandchild = _pids(pids)
    assert status == 0
    assert not _alive(agent) and not _alive(grandchild)


def test_sigterm_ends_the_turn_with_143_and_kills_the_agent_and_its_descendants(tmp_path):
    pids = tmp_path / "pids"
    agent = _python(ESCAPES + "import time; time.sleep(30)\n", str(pids))
    read, write = os.pipe()
    try:
        turn = subprocess.Popen(
            [sys.executable, "-I", "-S", SUPERVISOR, str(write), *agent], pass_fds=(write,)
        )
    finally:
        os.close(write)
        os.close(read)
    started, grandchild = _pids(pids)

    turn.send_signal(signal.SIGTERM)

    assert turn.wait(timeout=10) == 128 + signal.SIGTERM
    assert not _alive(started) and not _alive(grandchild)


def test_descendants_finds_children_and_grandchildren_even_with_parentheses_in_their_names(
    tmp_path,
):
    pids = tmp_path / "pids"
    # PR_SET_NAME (15): a command name that a parser reading up to the first ")" would take
    # for a zombie whose parent is init
    renamed = (
        "import ctypes, os, subprocess, sys, time, pathlib\n"
        "ctypes.CDLL(None).prctl(15, b'x) Z 1 (y', 0, 0, 0)\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)'])\n"
        "pathlib.Path(sys.argv[1]).write_text(f'{child.pid}')\n"
        "time.sleep(30)\n"
    )
    parent = subprocess.Popen(_python(renamed, str(pids)))
    try:
        (grandchild,) = _pids(pids)
        assert Path(f"/proc/{parent.pid}/comm").read_text() == "x) Z 1 (y\n"

        found = supervisor.descendants(os.getpid())

        assert {parent.pid, grandchild} <= set(found)
        assert set(supervisor.descendants(parent.pid)) == {grandchild}
        assert supervisor.descendants(grandchild) == []
    finally:
        parent.kill()
        parent.wait()


def test_descendants_leaves_out_a_child_that_ended_and_is_not_yet_reaped():
    child = subprocess.Popen(_python("pass"))
    deadline = time.monotonic() + 10
    while _state(child.pid) != b"Z":
        assert time.monotonic() < deadline
        time.sleep(0.01)

    try:
        assert child.pid not in supervisor.descendants(os.getpid())
    finally:
        child.wait()


def test_end_descendants_kills_and_reaps_the_whole_tree_under_its_caller():
    # as in the supervisor: a child subreaper, so the orphaned grandchild is its to reap
    program = (
        "import ctypes, os, subprocess, sys\n"
        "ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)\n"
        "from aidlc_review.review.agents.supervisor import descendants, end_descendants\n"
        "sleep = [sys.executable, '-c', 'import time; time.sleep(30)']\n"
        "spawn = 'import subprocess, sys, time; subprocess.Popen(sys.argv[1:]); time.sleep(30)'\n"
        "parent = [sys.executable, '-c', spawn, *sleep]\n"
        "kids = [subprocess.Popen(sleep), subprocess.Popen(parent)]\n"
        "while len(descendants(os.getpid())) < 3: pass\n"
        "before = descendants(os.getpid())\n"
        "end_descendants(os.getpid())\n"
        "gone = [p for p in before if not os.path.exists(f'/proc/{p}')]\n"
        "print(len(before), len(gone), descendants(os.getpid()))\n"
    )

    done = subprocess.run(_python(program), capture_output=True, text=True, timeout=120)

    assert (done.returncode, done.stdout, done.stderr) == (0, "3 3 []\n", "")
