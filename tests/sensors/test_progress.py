"""Long steps say what they run and that they are alive: the project's tests and mypy are
announced (the command, redacted, and the timeout), and any tool still running after
``HEARTBEAT_SECONDS`` says so again, until its result line gives counts and time."""

from __future__ import annotations

import re
import sys

from aidlc_review.cli.main import main
from aidlc_review.sensors import tools
from tests.adopt.test_init import _commit, _project


def test_run_tool_beats_while_the_tool_runs_and_loses_no_output(tmp_path, monkeypatch):
    monkeypatch.setattr(tools, "HEARTBEAT_SECONDS", 0.4)
    beats: list[float] = []
    program = "import time\nprint('a', flush=True)\ntime.sleep(1.5)\nprint('b')\n"

    run = tools.run_tool([sys.executable, "-c", program], tmp_path, 30, heartbeat=beats.append)

    assert run.returncode == 0 and run.stdout == "a\nb\n"
    assert len(beats) >= 2 and beats == sorted(beats)


def test_a_tool_is_announced_once_it_runs_and_the_next_start_is_told_once(tmp_path):
    """The announcement is said once the tool has started (its redaction, which may load
    detect-secrets, never delays the start); whoever waits for the next tool to start is
    told once, before the announcement, and a callback forgotten is never called."""
    said: list[str] = []
    tools.on_next_start(lambda: said.append("told"))
    forgotten = tools.on_next_start(lambda: said.append("never"))
    forgotten()

    run = tools.run_tool(
        [sys.executable, "-c", "print('ran')"], tmp_path, 30, started=lambda: said.append("said")
    )
    tools.run_tool([sys.executable, "-c", ""], tmp_path, 30)

    assert run.returncode == 0 and run.stdout == "ran\n"
    assert said == ["told", "said"]


def test_a_slow_test_run_is_announced_and_beats(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(tools, "HEARTBEAT_SECONDS", 1.0)
    root = _project(tmp_path / "pkg")
    (root / "tests/test_slow.py").write_text(
        "import time\n\n\ndef test_slow():\n    time.sleep(3.5)\n"
    )
    assert main(["init", "--workspace", str(root), "src/", "tests/"]) == 0
    _commit(root)
    capsys.readouterr()

    assert main(["review", "run", "--workspace", str(root)]) == 0

    err = capsys.readouterr().err
    assert re.search(
        r"review: coverage: running python -m pytest -q under coverage on \S+ \(timeout \d+s\)\n",
        err,
    )
    beats = re.findall(
        r"review: coverage: still running python -m pytest -q .* \((\d+)s of \d+s\)", err
    )
    assert len(beats) >= 2, err
    assert re.search(r"review: coverage: passed \(0 finding\(s\), \d+ ms", err)
