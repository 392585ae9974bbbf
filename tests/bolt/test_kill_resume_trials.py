"""Bolt's adversarial cases: a run killed at any moment converges on resume.

A kill inside an atomic write leaves a ``.<name>.<random>.tmp`` beside its target in the
unit's record; resume must ignore and remove it rather than refuse the unit forever.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time

from aidlc_review.bolt.finalize import remove_stale_temps
from aidlc_review.bolt.git import Git
from aidlc_review.bolt.merge import count_merges
from aidlc_review.cli.main import main

TRIALS = 20
TWO_UNITS = "- name: auth\n- name: store\n"


def test_resume_removes_only_the_temp_files_a_killed_atomic_write_left(tmp_path):
    record = tmp_path / "aidlc-docs"
    folder = record / "construction" / "auth" / "code-review"
    folder.mkdir(parents=True)
    stale = folder / ".code-review-findings.json.k1ll3d0x.tmp"
    stale.write_text('{"half": ')
    kept = [folder / "code-review.md", folder / "notes.tmp", folder / ".hidden.tmp"]
    for path in kept:
        path.write_text("kept\n")

    assert remove_stale_temps(record) == [stale]
    assert not stale.exists()
    assert all(path.exists() for path in kept)


def test_twenty_kill_and_resume_trials_all_converge(scene, capsys):
    agent = scene.agents()
    units = scene.units(TWO_UNITS)
    git = Git(scene.repo)

    def next_run() -> list[str]:
        """Resume the recorded run; a kill before any state was recorded starts afresh."""
        if (scene.repo / ".git" / "aidlc-bolt" / "current").is_file():
            return ["bolt", "run", "--workspace", str(scene.repo), "--resume"]
        return scene.run_argv(TWO_UNITS, agent, "--jobs", "2")

    for trial in range(TRIALS):
        argv = next_run()
        proc = subprocess.Popen(
            [sys.executable, "-m", "aidlc_review", *argv],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(0.3 + 0.1 * (trial % 7))  # kills land at start-up, generation, review, merge
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        if proc.returncode == 0:
            break
    capsys.readouterr()
    code = main(next_run())
    state = scene.state()
    assert code == 0, capsys.readouterr().err
    assert {u: s["status"] for u, s in state["units"].items()} == {
        "auth": "merged",
        "store": "merged",
    }
    for unit in ("auth", "store"):
        assert count_merges(git, "main", state["run_id"], unit) == 1
    assert units.is_file()
