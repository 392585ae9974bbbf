"""A command agent's processes end with it: nothing it started outlives its run."""

from __future__ import annotations

import sys
import time

from aidlc_review.review.agents.adapters import parse_agent, run_command_agent

LEAVES_A_CHILD = (
    "import subprocess, sys\n"
    "subprocess.Popen([sys.executable, '-c', "
    '\'import time, pathlib; time.sleep(1); pathlib.Path("late.txt").write_text("edited")\'],'
    " stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
    "print('{}')\n"
)


def test_a_background_child_does_not_outlive_an_agent_that_exited_normally(tmp_path):
    script = tmp_path / "agent.py"
    script.write_text(LEAVES_A_CHILD)
    spec = parse_agent(f"command:{sys.executable} {script}", "--reviewer", ("builtin",))
    run = run_command_agent(spec, cwd=tmp_path, brief="brief", env={}, timeout=30)
    assert run.failure is None
    time.sleep(1.5)
    assert not (tmp_path / "late.txt").exists()
