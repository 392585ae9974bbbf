"""A killed run resumes where it stopped: nothing finished is redone, nothing merged twice."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

from aidlc_review.bolt.git import Git
from aidlc_review.bolt.merge import count_merges
from aidlc_review.cli.main import main

THREE_UNITS = "- name: auth\n- name: store\n- name: api\n  depends_on: [auth, store]\n"


def wait_for_a_merge(scene, proc, limit=60.0):
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the run finished before it could be killed"
        try:
            if any(u["status"] == "merged" for u in scene.state()["units"].values()):
                return
        except (OSError, ValueError):
            pass
        time.sleep(0.02)
    raise AssertionError("no unit was merged in time")


def test_a_run_killed_after_its_first_merge_resumes_with_each_merge_once(scene, capsys):
    agent = scene.agents(api={"sleep": 60})
    units = scene.units(THREE_UNITS)
    argv = [
        sys.executable,
        "-m",
        "aidlc_review",
        "bolt",
        "run",
        "--workspace",
        str(scene.repo),
        "--units",
        str(units),
        "--developer",
        agent,
        "--reviewer",
        agent,
        "--jobs",
        "2",
    ]
    with open(scene.tmp / "first-run.err", "wb") as err:
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err)
        wait_for_a_merge(scene, proc)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    finished = {e["pid"] for e in scene.entries(event="end")}
    for entry in scene.entries(role="developer", event="start"):
        if entry["pid"] not in finished:  # the killed run's agent would write on; stop it too
            os.kill(entry["pid"], signal.SIGKILL)
    assert scene.state()["phase"] == "running"

    scene.agents()  # the resumed run's api developer does not dawdle
    assert main(["bolt", "run", "--workspace", str(scene.repo), "--resume", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [(u["unit"], u["status"]) for u in out["units"]] == [
        ("auth", "merged"),
        ("store", "merged"),
        ("api", "merged"),
    ]
    git = Git(scene.repo)
    run_id = scene.state()["run_id"]
    assert [count_merges(git, "main", run_id, u) for u in ("auth", "store", "api")] == [1, 1, 1]
    assert len(scene.squash_subjects()) == 3
    starts = [e["unit"] for e in scene.entries(role="developer", event="start")]
    assert starts.count("auth") == starts.count("store") == 1  # finished units are not redone
    assert (scene.repo / "src" / "api.txt").is_file()


def test_a_merge_committed_but_not_recorded_is_found_not_repeated(scene, capsys):
    agent = scene.agents()
    assert main(scene.run_argv("- name: solo\n", agent)) == 0
    merged_as = scene.state()["units"]["solo"]["merge_commit"]
    # As if the run died between the squash commit and writing the state.
    state = scene.state()
    state["phase"] = "running"
    state["units"]["solo"].update(status="finalized", merge_commit=None)
    scene.record_state(state)
    capsys.readouterr()
    assert main(["bolt", "run", "--workspace", str(scene.repo), "--resume"]) == 0
    assert f"[solo] already merged as {merged_as[:8]}\n" in capsys.readouterr().err
    assert len(scene.squash_subjects()) == 1
    assert scene.state()["units"]["solo"]["merge_commit"] == merged_as


def test_a_run_killed_inside_the_squash_merge_rolls_it_back_and_merges_once(scene, capsys):
    agent = scene.agents()
    assert main(scene.run_argv("- name: solo\n", agent)) == 0
    state = scene.state()
    # As if killed after 'git merge --squash' staged the unit but before the commit.
    subprocess.run(["git", "-C", str(scene.repo), "reset", "-q", "--hard", "HEAD~1"], check=True)
    subprocess.run(
        ["git", "-C", str(scene.repo), "merge", "-q", "--squash", state["units"]["solo"]["commit"]],
        check=True,
        capture_output=True,
    )
    state["phase"] = "running"
    state["units"]["solo"].update(status="merging", merge_commit=None)
    scene.record_state(state)
    capsys.readouterr()
    assert main(["bolt", "run", "--workspace", str(scene.repo), "--resume"]) == 0
    assert "[solo] rolling back an interrupted merge\n" in capsys.readouterr().err
    assert len(scene.squash_subjects()) == 1
    assert (
        subprocess.run(
            ["git", "-C", str(scene.repo), "status", "--porcelain"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        == ""
    )


def test_a_run_killed_during_a_review_picks_it_up_without_regenerating(scene, capsys):
    agent = scene.agents(stuck={"bug": True})
    assert main(scene.run_argv("- name: stuck\n", agent)) == 1
    state = scene.state()
    state["phase"] = "running"
    state["units"]["stuck"].update(status="reviewing", commit=None)
    scene.record_state(state)
    capsys.readouterr()
    assert main(["bolt", "run", "--workspace", str(scene.repo), "--resume"]) == 1
    err = capsys.readouterr().err
    assert "[stuck] resuming its review\n" in err
    assert "[stuck] unchanged since pass 3 of attempt 1: NOT-READY\n" in err
    assert len(scene.entries(role="developer")) == 2  # one start and one end: not regenerated
    assert len(scene.entries(role="reviewer")) == 3
    assert scene.state()["units"]["stuck"]["status"] == "held"
