"""Agents get nothing that authenticates, and no process of theirs outlives their turn.

Real agents, real processes: a grandchild that leaves the agent's session with
``os.setsid()``, a double-forked daemon holding the agent's stdout, an agent that
dumps its environment or goes looking for the review's state key (DESIGN.md §9).
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from tests.review.workspace import (
    CLEAN,
    LINT_ERROR,
    findings_doc,
    make_workspace,
    review_args,
    script_agent,
    write,
)

READY = {"verdict": "READY", "summary": "Looks fine.", "findings": []}
DOCUMENTED = {
    "AIDLC_UNIT",
    "AIDLC_WORKSPACE",
    "AIDLC_RECORD",
    "AIDLC_BRIEF",
    "AIDLC_ROLE",
    "AIDLC_PASS",
}
# From a session and process group of its own: appends its pid (the agent waits for it),
# then goes on editing the workspace for 30 s (bounded, so a failing run leaves nothing
# behind for long).
DAEMON = """
import os, pathlib, sys, time
os.setsid()
log, end = pathlib.Path(sys.argv[2]), time.monotonic() + 30
log.write_text("started\\n")
with open(sys.argv[1], "a") as pids:  # one small write: whole or not there
    pids.write(f"{os.getpid()}\\n")
while time.monotonic() < end:
    with log.open("a") as out:
        out.write("still here\\n")
    time.sleep(0.05)
"""
# The agent's child: starts the daemon (the agent's grandchild) and waits on.
PARENT = """
import subprocess, sys, time
subprocess.Popen([sys.executable, *sys.argv[1:]], stdin=subprocess.DEVNULL,
                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
time.sleep(30)
"""


@pytest.fixture
def pids(tmp_path: Path) -> Iterator[Path]:
    """The file the daemons write their pids to; whatever is left of them is killed after."""
    path = tmp_path / "daemon-pids"
    yield path
    for pid in _pids(path):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _pids(path: Path) -> list[int]:
    return [int(line) for line in path.read_text().split()] if path.exists() else []


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _setsid_agent(tmp_path: Path, pids: Path, log: Path, then: str) -> str:
    """An agent whose grandchild calls setsid() and edits ``log``; then it does ``then``."""
    daemon, parent = tmp_path / "agents" / "daemon.py", tmp_path / "agents" / "parent.py"
    write(daemon, DAEMON)
    write(parent, PARENT)
    return script_agent(
        tmp_path / "agents" / "agent.py",
        f"""
        import subprocess, sys, time
        from pathlib import Path
        sys.stdin.read()
        subprocess.Popen([sys.executable, {str(parent)!r}, {str(daemon)!r}, {str(pids)!r},
                          {str(log)!r}], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        pid_file = Path({str(pids)!r})
        while not (pid_file.exists() and pid_file.read_text().endswith("\\n")):
            time.sleep(0.01)
        {then}
        """,
    )


def _assert_gone(pids: Path, log: Path) -> None:
    started = _pids(pids)
    assert started, "the agent's daemon never started"
    assert [pid for pid in started if _alive(pid)] == []
    size = log.stat().st_size
    time.sleep(0.3)  # the daemon writes every 0.05 s while it lives
    assert log.stat().st_size == size


def test_a_repairers_setsid_grandchild_does_not_outlive_the_review(tmp_path, capsys, pids):
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": LINT_ERROR})
    log = ws / "notes.log"
    repairer = _setsid_agent(tmp_path, pids, log, then="pass")

    main(review_args(ws, "--repairer", repairer))

    assert findings_doc(ws)["passes"][0]["repair"]["status"] == "done"
    _assert_gone(pids, log)


def test_a_reviewers_setsid_grandchild_does_not_outlive_the_review(tmp_path, capsys, pids):
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": CLEAN})
    log = ws / "notes.log"
    reviewer = _setsid_agent(tmp_path, pids, log, then=f"print({json.dumps(READY)!r})")

    main(review_args(ws, "--reviewer", reviewer))

    assert findings_doc(ws)["passes"][0]["reviewer"]["status"] == "answered"
    _assert_gone(pids, log)


@pytest.mark.parametrize("role", ["--reviewer", "--repairer"])
def test_a_setsid_grandchild_of_an_agent_that_timed_out_is_gone_too(tmp_path, capsys, pids, role):
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": LINT_ERROR})
    log = ws / "notes.log"
    agent = _setsid_agent(tmp_path, pids, log, then="time.sleep(60)")

    started = time.monotonic()
    main(review_args(ws, role, agent, "--agent-timeout", "2"))

    assert time.monotonic() - started < 30
    first = findings_doc(ws)["passes"][0]
    record = first["reviewer"] if role == "--reviewer" else first["repair"]
    assert record["reason"] == "no answer before the agent timeout"
    _assert_gone(pids, log)


def test_a_double_forked_daemon_holding_stdout_is_gone_and_does_not_hold_up_the_review(
    tmp_path, capsys, pids
):
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": CLEAN})
    log = ws / "notes.log"
    daemon = tmp_path / "agents" / "daemon.py"
    write(daemon, DAEMON)
    reviewer = script_agent(
        tmp_path / "agents" / "reviewer.py",
        f"""
        import os, sys, time
        from pathlib import Path
        sys.stdin.read()
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:  # keeps the agent's stdout open, as a careless daemon does
                os.execv(sys.executable, [sys.executable, {str(daemon)!r}, {str(pids)!r},
                                          {str(log)!r}])
            os._exit(0)
        os.wait()
        pid_file = Path({str(pids)!r})
        while not (pid_file.exists() and pid_file.read_text().endswith("\\n")):
            time.sleep(0.01)
        print({json.dumps(READY)!r}, flush=True)
        """,
    )

    started = time.monotonic()
    main(review_args(ws, "--reviewer", reviewer, "--agent-timeout", "20"))

    assert time.monotonic() - started < 15
    assert findings_doc(ws)["passes"][0]["reviewer"]["status"] == "answered"
    _assert_gone(pids, log)


def _env_dumper(path: Path, seen: Path, answer: str) -> str:
    return script_agent(
        path,
        f"""
        import json, os, sys
        sys.stdin.read()
        name = os.environ.get("AIDLC_ROLE", "unknown") + "-" + os.environ.get("AIDLC_PASS", "")
        with open(os.path.join({str(seen)!r}, name + ".json"), "w") as out:
            json.dump(dict(os.environ), out)
        {answer}
        """,
    )


def test_an_agent_sees_nothing_that_leads_to_the_review_state(tmp_path, capsys, monkeypatch):
    state = Path(os.environ["XDG_STATE_HOME"]) / "aidlc-review"
    monkeypatch.setenv("AIDLC_REVIEW_SETTING", "the review's own")
    monkeypatch.setenv("TOOL_STATE", f"{state}/tool")
    monkeypatch.setenv("TOOL_STATE_ROOT", os.environ["XDG_STATE_HOME"])
    monkeypatch.setenv("UNRELATED_SETTING", "kept")
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": LINT_ERROR})
    seen = tmp_path / "seen"
    seen.mkdir()
    reviewer = _env_dumper(tmp_path / "reviewer.py", seen, f"print({json.dumps(READY)!r})")
    repairer = _env_dumper(tmp_path / "repairer.py", seen, "")

    main(review_args(ws, "--reviewer", reviewer, "--repairer", repairer))

    dumps = {p.stem: json.loads(p.read_text()) for p in seen.iterdir()}
    assert sorted(dumps) == ["repairer-1", "reviewer-1", "reviewer-2"]
    for env in dumps.values():
        assert "XDG_STATE_HOME" not in env
        assert {name for name in env if name.startswith("AIDLC_")} == DOCUMENTED
        assert [name for name, value in env.items() if str(state) in value] == []
        assert "TOOL_STATE_ROOT" not in env
        assert env["UNRELATED_SETTING"] == "kept"
        assert (env["HOME"], env["PATH"]) == (os.environ["HOME"], os.environ["PATH"])


def test_an_agent_looking_for_the_state_key_in_its_environment_finds_no_way_to_it(tmp_path, capsys):
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": CLEAN})
    found = tmp_path / "found.json"
    reviewer = script_agent(
        tmp_path / "reviewer.py",
        f"""
        import json, os, sys
        from pathlib import Path
        sys.stdin.read()
        base = os.environ.get("XDG_STATE_HOME")
        key = Path(base or "/nonexistent") / "aidlc-review" / "state.key"
        read = key.read_bytes().hex() if key.is_file() else None
        Path({str(found)!r}).write_text(json.dumps({{"base": base, "key": read}}))
        print({json.dumps(READY)!r})
        """,
    )

    assert main(review_args(ws, "--reviewer", reviewer)) == 0

    key = Path(os.environ["XDG_STATE_HOME"]) / "aidlc-review" / "state.key"
    assert key.is_file()  # the review sealed with it
    assert json.loads(found.read_text()) == {"base": None, "key": None}


def test_an_agent_that_is_not_there_is_refused_before_a_pass_is_spent(tmp_path, capsys):
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": CLEAN})
    missing = tmp_path / "no-such-agent"
    capsys.readouterr()

    bare = "aidlc-no-such-agent"  # a name PATH does not have, as a missing preset CLI
    for agent, program in ((f"command:{missing}", str(missing)), (f"command:{bare}", bare)):
        assert main(review_args(ws, "--reviewer", agent)) == 2
        assert capsys.readouterr().err == (
            f"--reviewer {agent!r}: {program!r} is not an executable on PATH; install it, "
            "or name another agent (builtin | claude | codex | command:CMD)\n"
        )
    assert not (ws / "aidlc-docs/construction/u1-orders/code-review").exists()


def test_an_agent_that_cannot_be_started_in_the_workspace_is_named(tmp_path, capsys):
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": CLEAN})

    assert main(review_args(ws, "--reviewer", "command:./no-such-agent")) == 1

    reason = findings_doc(ws)["passes"][0]["reviewer"]["reason"]
    assert reason == "cannot start './no-such-agent': No such file or directory"


def test_an_agent_killed_by_a_signal_exits_with_128_plus_the_signal(tmp_path, capsys):
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": CLEAN})
    reviewer = script_agent(
        tmp_path / "reviewer.py", "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n"
    )

    assert main(review_args(ws, "--reviewer", reviewer)) == 1

    reason = findings_doc(ws)["passes"][0]["reviewer"]["reason"]
    assert reason == f"agent exited with status {128 + signal.SIGKILL}"
