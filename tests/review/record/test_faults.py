"""Faults lose no data: a kill in the middle of writing, two runs of the same unit at once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from aidlc_review.cli.main import main
from aidlc_review.review.record.store import load_document
from tests.review.workspace import (
    CLEAN,
    LINT_ERROR,
    UNIT,
    findings_doc,
    make_workspace,
    manifest_path,
    review_args,
    script_agent,
    write,
)

# A real ``aidlc-review review run`` in a child process whose fsync announces itself and
# then stalls: the parent kills it there, between writing the temp file and renaming it.
STALLING_RUN = """
import os, sys, time
marker = sys.argv[1]
def stalled_fsync(fd):
    open(marker, "w").close()
    time.sleep(120)
os.fsync = stalled_fsync
from aidlc_review.cli.main import main
sys.exit(main(sys.argv[2:]))
"""


def _findings(ws: Path) -> Path:
    return manifest_path(ws).parents[1] / "code-review" / "code-review-findings.json"


def test_a_kill_in_the_middle_of_writing_leaves_the_previous_findings_intact(tmp_path):
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": CLEAN})
    assert main(review_args(ws)) == 0
    before = _findings(ws).read_bytes()
    write(ws / "src/orders/app.py", LINT_ERROR)  # stale, so the next run writes pass 2
    marker = tmp_path / "stalled"
    child = subprocess.Popen(
        [sys.executable, "-c", STALLING_RUN, str(marker), *review_args(ws)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while not marker.exists() and time.monotonic() < deadline and child.poll() is None:
        time.sleep(0.05)
    assert marker.exists(), "the child never reached a write"
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    assert _findings(ws).read_bytes() == before
    document = load_document(_findings(ws))
    assert document is not None and [p.number for p in document.passes] == [1]
    # The next run goes on from the intact history.
    assert main(review_args(ws)) == 1
    assert [p["pass"] for p in findings_doc(ws)["passes"]] == [1, 2]


def test_two_runs_of_the_same_unit_at_once_neither_corrupt_nor_lose_a_pass(tmp_path):
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": LINT_ERROR})
    repairer = script_agent(
        tmp_path / "fix.py",
        f"""
        import pathlib, sys, time
        sys.stdin.read()
        time.sleep(1)
        pathlib.Path("src/orders/app.py").write_text({CLEAN!r})
    """,
    )
    argv = [sys.executable, "-m", "aidlc_review", *review_args(ws, "--repairer", repairer)]
    runs = [
        subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    results = [(run.wait(timeout=300), run.stdout.read(), run.stderr.read()) for run in runs]
    assert [code for code, _, _ in results] == [0, 0], results
    doc = findings_doc(ws)
    assert [(p["attempt"], p["pass"], p["verdict"]) for p in doc["passes"]] == [
        (1, 1, "NOT-READY"),
        (1, 2, "READY"),
    ]
    waited = [err for _, _, err in results if f"waiting for another review of {UNIT}" in err]
    assert len(waited) == 1
    assert "unchanged since pass 2 of attempt 1: READY" in waited[0]
