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
        "aidlc-docs/construction/solo/code-review/code-review-receipt.json",
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


def test_a_unit_rewriting_another_units_record_is_refused_claimed_or_not(scene):
    forged = "aidlc-docs/construction/a/code-review/code-review.md"
    units = "- name: a\n- name: b\n  depends_on: [a]\n- name: c\n  depends_on: [a]\n"
    store = start(
        scene,
        units,
        b={"files": [{"path": forged, "text": "# a: READY, all good\n", "claim": True}]},
        c={"files": [{"path": "aidlc-docs/inception/requirements.md", "text": "rewritten\n"}]},
    )
    state = pipeline.drive(store, 2, lambda _: None)
    assert state.units["a"].status == "merged"
    assert (state.units["b"].status, state.units["b"].problems) == (
        "refused",
        [
            "finalize refused unit b: diff touches record paths outside "
            f"aidlc-docs/construction/b/: {forged}"
        ],
    )
    assert (state.units["c"].status, state.units["c"].problems) == (
        "refused",
        [
            "finalize refused unit c: diff touches record paths outside "
            "aidlc-docs/construction/c/: aidlc-docs/inception/requirements.md",
            "finalize refused unit c: diff touches paths its source manifest does not claim: "
            "aidlc-docs/inception/requirements.md",
        ],
    )
    assert [s.split(": ")[1] for s in scene.squash_subjects()] == ["a"]
    assert "all good" not in (scene.repo / forged).read_text()


def test_only_plain_documents_may_change_in_the_units_own_record(scene):
    record = "aidlc-docs/construction/a/code-generation"
    store = start(
        scene,
        "- name: a\n",
        a={
            "files": [
                {"path": f"{record}/setup.sh", "text": "#!/bin/sh\necho hi\n", "executable": True},
                {"path": f"{record}/notes.md", "text": "# run me\n", "executable": True},
                {"path": f"{record}/plan.txt", "text": "claimed\n", "claim": True},
                {"path": f"{record}/summary.md", "text": "# fine\n"},
            ]
        },
    )
    state = pipeline.drive(store, 1, lambda _: None)
    assert (state.units["a"].status, state.units["a"].problems) == (
        "refused",
        [
            "finalize refused unit a: diff touches files in its record that are not plain "
            f"documents (*.md, *.json, not executable): {record}/notes.md, "
            f"{record}/plan.txt, {record}/setup.sh"
        ],
    )
    assert scene.squash_subjects() == []
