"""A merge lands exactly the bytes that were reviewed, or it does not happen."""

from __future__ import annotations

import json
import subprocess

from aidlc_review.cli.main import main
from tests.bolt.conftest import git

LIB = "".join(f"line {n}\n" for n in range(1, 11))


def commit_lib(scene, text: str, message: str) -> None:
    (scene.repo / "lib.txt").write_text(text)
    git(scene.repo, "add", "lib.txt")
    git(scene.repo, "commit", "-q", "-m", message)


def edit(line: int, text: str) -> dict:
    return {"files": [{"path": "lib.txt", "line": line, "text": text, "claim": True}]}


def bolt(scene, *args: str) -> int:
    return main(["bolt", *args, "--workspace", str(scene.repo)])


def run(scene, units: str, agent: str, *extra: str) -> int:
    units_file = str(scene.units(units))
    return bolt(
        scene, "run", "--units", units_file, "--developer", agent, "--reviewer", agent, *extra
    )


def test_two_units_of_a_batch_editing_one_file_merge_one_and_mark_the_other_conflict(scene, capsys):
    commit_lib(scene, LIB, "lib")
    agent = scene.agents(one=edit(1, "one was here"), two=edit(9, "two was here"))
    assert run(scene, "- one\n- two\n", agent) == 1
    state = scene.state()
    one, two = state["units"]["one"], state["units"]["two"]
    assert (one["status"], two["status"]) == ("merged", "conflict")
    assert two["problems"] == [
        "not merged: main has changed lib.txt since this unit's base, so its reviewed bytes "
        "cannot land as reviewed; 'bolt gate --request-changes --unit two' regenerates it "
        "on the current main"
    ]
    # The target holds exactly what one's reviewer saw, not a blend nobody reviewed.
    assert git(scene.repo, "show", "main:lib.txt") == git(
        scene.repo, "show", f"{one['commit']}:lib.txt"
    )
    assert [s.split(": ")[1] for s in scene.squash_subjects()] == ["one"]
    capsys.readouterr()
    assert bolt(scene, "status") == 0
    assert (
        "  two: conflict (READY, 1 pass(es), attempt 1)\n"
        f"      ! {two['problems'][0]}" in capsys.readouterr().out
    )

    assert bolt(scene, "gate", "--request-changes", "--unit", "two") == 0
    assert bolt(scene, "run", "--resume") == 0
    two = scene.state()["units"]["two"]
    assert two["status"] == "merged"
    assert two["base"] == one["merge_commit"]  # regenerated on the target as it is now
    lib = git(scene.repo, "show", "main:lib.txt")
    assert lib == git(scene.repo, "show", f"{two['commit']}:lib.txt")
    assert lib.splitlines()[0] == "one was here" and lib.splitlines()[8] == "two was here"
    assert len(scene.entries(role="developer", unit="two", event="start")) == 2


def test_a_target_that_moved_past_an_older_base_in_the_units_paths_is_a_conflict(scene):
    commit_lib(scene, LIB, "lib")
    commit_lib(scene, LIB.replace("line 9\n", "moved on main\n"), "main moves on")
    agent = scene.agents(one=edit(1, "one was here"))
    assert run(scene, "- one\n", agent, "--base", "HEAD~1") == 1
    one = scene.state()["units"]["one"]
    assert one["status"] == "conflict"
    assert one["problems"][0].startswith("not merged: main has changed lib.txt since")
    assert scene.squash_subjects() == []
    assert git(scene.repo, "show", "main:lib.txt").splitlines()[8] == "moved on main"


def test_a_regenerated_candidate_is_merged_not_mistaken_for_its_earlier_merge(scene, capsys):
    agent = scene.agents()
    assert run(scene, "- solo\n", agent) == 0
    first = scene.state()["units"]["solo"]
    assert bolt(scene, "gate", "--request-changes", "--unit", "solo") == 0
    subprocess.run(
        ["git", "-C", str(scene.repo), "worktree", "remove", "--force", first["worktree"]],
        check=True,
    )
    assert bolt(scene, "run", "--resume") == 1  # its worktree is gone: the review fails
    assert scene.state()["units"]["solo"]["status"] == "failed"
    scene.agents(solo={"bug": True, "fix_on_repair": True})
    capsys.readouterr()
    assert bolt(scene, "run", "--resume", "--json") == 0
    assert "already merged" not in capsys.readouterr().err
    solo = scene.state()["units"]["solo"]
    assert solo["status"] == "merged" and solo["merge_commit"] != first["merge_commit"]
    assert (scene.repo / "src" / "solo.txt").read_text() == "# unit solo\nVALUE = 2\n"
    assert git(scene.repo, "show", "main:src/solo.txt") == "# unit solo\nVALUE = 2\n"
    assert [s.split(": ")[1] for s in scene.squash_subjects()] == ["solo", "solo"]
    trailers = git(scene.repo, "log", "-1", "--format=%B", "main")
    assert f"Bolt-Candidate: {solo['commit']}" in trailers.splitlines()
    assert (
        json.loads(
            git(
                scene.repo,
                "show",
                "main:aidlc-docs/construction/solo/code-review/code-review-findings.json",
            )
        )["verdict"]
        == "READY"
    )
