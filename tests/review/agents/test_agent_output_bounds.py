"""A reviewer that floods its output gets no hearing, and costs the review no memory."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from aidlc_review.review.agents.pipes import MAX_ANSWER_BYTES
from tests.review.workspace import CLEAN, UNIT, findings_doc, make_workspace, script_agent

FLOOD = """
import sys
sys.stdin.read()
block = b"x" * (1 << 20)
for _ in range(2048):  # 2 GiB, unless the review stops listening first
    sys.stdout.buffer.write(block)
"""


def test_a_reviewer_flooding_2_gib_is_unavailable_and_the_review_stays_small(tmp_path: Path):
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": CLEAN})
    reviewer = script_agent(tmp_path / "agents" / "flood.py", FLOOD)
    argv = [sys.executable, "-m", "aidlc_review", "review", "run", "--workspace", str(ws)]
    argv += ["--unit", UNIT, "--reviewer", reviewer]
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert process.stderr is not None
    said = process.stderr.read().decode()
    _, status, usage = os.wait4(process.pid, 0)

    assert os.waitstatus_to_exitcode(status) == 1, said
    peak_mib = usage.ru_maxrss / 1024  # kilobytes on Linux
    assert peak_mib < 300, f"the review peaked at {peak_mib:.0f} MiB"
    last = findings_doc(ws)["passes"][-1]["findings"]
    reasons = [f["finding"] for f in last if f["finding"].startswith("reviewer unavailable")]
    assert reasons == [f"reviewer unavailable: answer larger than {MAX_ANSWER_BYTES} bytes"]
