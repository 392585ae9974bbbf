"""Finalize refuses what the review did not bind: changed bytes and unclaimed paths."""

from __future__ import annotations

import json
from pathlib import Path

from aidlc_review.bolt import pipeline
from aidlc_review.bolt.units import load_units
from aidlc_review.cli.main import main
from tests.bolt.conftest import git


def start(scene, units_text, **behaviour):
    agent = scene.agents(**behaviour)
    options = pipeline.RunOptions(workspace=scene.repo, developer=agent, reviewer=agent)
    units = scene.units(units_text)
    return pipeline.start_run(options, load_units(units), units)


def test_a_worktree_changed_after_its_receipt_is_refused_and_kept(scene):
    store = start(scene, "- name: fine\n- name: edited\n")
    said = []

    def progress(message):
        said.append(message)
        if message.startswith("[edited] review READY"):  # between the receipt and finalize
            worktree = Path(store.state.units["edited"].worktree)
            (worktree / "src" / "edited.txt").write_text("# changed after the review\n")

    state = pipeline.drive(store, 2, progress)
    edited = state.units["edited"]
    assert (edited.status, edited.verdict) == ("refused", "READY")
    assert edited.problems == [
        "finalize refused unit edited: changed after its review receipt: src/edited.txt"
    ]
    assert (
        f"[edited] finalize refused: changed after its review receipt: src/edited.txt "
        f"(worktree kept at {edited.worktree})" in said
    )
    assert (
        Path(edited.worktree) / "src" / "edited.txt"
    ).read_text() == "# changed after the review\n"
    assert state.units["fine"].status == "merged"
    assert [s.split(": ")[1] for s in scene.squash_subjects()] == ["fine"]
    assert main(["bolt", "gate", "--workspace", str(scene.repo), "--approve"]) == 1
    assert [s.split(": ")[1] for s in scene.squash_subjects()] == ["fine"]


def test_a_diff_touching_an_unclaimed_path_is_refused(scene):
    store = start(scene, "- name: sneaky\n", sneaky={"extra": "NOTES.txt"})
    state = pipeline.drive(store, 1, lambda _: None)
    sneaky = state.units["sneaky"]
    assert sneaky.status == "refused"
    assert sneaky.problems == [
        "finalize refused unit sneaky: "
        "diff touches paths its source manifest does not claim: NOTES.txt"
    ]
    assert (Path(sneaky.worktree) / "NOTES.txt").is_file()
    assert scene.squash_subjects() == []
    assert git(scene.repo, "rev-parse", "main") == git(scene.repo, "rev-parse", state.base)


def test_record_files_land_on_the_target_but_engine_state_does_not(scene):
    state = pipeline.drive(start(scene, "- name: solo\n"), 1, lambda _: None)
    commit = state.units["solo"].merge_commit
    changed = git(scene.repo, "show", "--name-only", "--format=", commit).split()
    assert changed == [
        "aidlc-docs/construction/solo/code-generation/source-manifest.json",
        "aidlc-docs/construction/solo/code-review/code-review-findings.json",
        "aidlc-docs/construction/solo/code-review/code-review.md",
        "src/solo.txt",
    ]
    assert (Path(state.units["solo"].worktree) / "aidlc-docs" / ".aidlc-engine").is_dir()


def test_a_forged_verdict_does_not_pass_finalize(scene):
    store = start(scene, "- name: forged\n", forged={"bug": True})

    def progress(message):
        if message.startswith("[forged] review NOT-READY"):
            worktree = Path(store.state.units["forged"].worktree)
            path = worktree / "aidlc-docs/construction/forged/code-review/code-review-findings.json"
            doc = json.loads(path.read_text())
            doc["verdict"] = doc["receipt"]["verdict"] = "READY"
            path.write_text(json.dumps(doc))

    state = pipeline.drive(store, 1, progress)
    assert state.units["forged"].status == "refused"
    assert state.units["forged"].problems == [
        "finalize refused unit forged: the review receipt in "
        "aidlc-docs/construction/forged/code-review/code-review-findings.json "
        "does not match its findings"
    ]
    assert scene.squash_subjects() == []
