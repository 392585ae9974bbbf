"""Bolt fails closed: a dirty main worktree stops the run before it starts, a commit on the
unit branch outside the claims blocks the review, and a forged run state is refused."""

from __future__ import annotations

import json
from pathlib import Path

from aidlc_review.bolt.state import SEAL_KEY, SEAL_LABEL, UnitStatus
from aidlc_review.cli.main import main
from aidlc_review.fsio import canonical_json
from aidlc_review.review.record.seal import sign
from tests.bolt.conftest import git


def test_a_dirty_main_worktree_is_refused_before_anything_starts(scene, capsys):
    agent = scene.agents()
    (scene.repo / "README.md").write_text("# local edit\n")
    (scene.repo / "notes.txt").write_text("untracked\n")
    assert main(scene.run_argv("- name: solo\n", agent)) == 2
    assert capsys.readouterr().err == (
        f"{scene.repo.resolve()}: the main worktree has uncommitted or untracked changes: "
        "README.md, notes.txt; commit, stash or remove them before 'bolt run' (target main)\n"
    )
    assert not (scene.repo / ".git" / "aidlc-bolt" / "current").exists()
    assert scene.entries() == []  # no agent ran
    assert git(scene.repo, "branch", "--list", "bolt-*") == ""


def test_a_file_committed_on_the_unit_branch_outside_the_claims_blocks_the_review(scene, capsys):
    agent = scene.agents(solo={"commit": [{"path": "backdoor.py", "text": "import os\n"}]})
    assert main([*scene.run_argv("- name: solo\n", agent), "--repairer", "none"]) == 1
    unit = scene.state()["units"]["solo"]
    # NOT-READY from the review itself; finalize refuses the unclaimed diff as well
    assert (unit["status"], unit["verdict"]) == ("refused", "NOT-READY")
    findings = [f["finding"] for f in unit["open_findings"]]
    assert f"backdoor.py: unclaimed source added since the unit's base {unit['base'][:12]}" in (
        findings
    )
    assert scene.squash_subjects() == []


def test_a_forged_run_state_is_refused_and_nothing_is_merged(scene, capsys):
    agent = scene.agents(solo={"bug": True})
    assert main([*scene.run_argv("- name: solo\n", agent), "--repairer", "none"]) == 1
    root = scene.repo / ".git" / "aidlc-bolt"
    path = root / (root / "current").read_text().strip() / "state.json"
    state = json.loads(path.read_text())
    assert state["units"]["solo"]["status"] == "held"
    # an agent with the repository at hand marks its unit READY and approved
    state["units"]["solo"].update(verdict="READY", approved=True, status="finalized")
    state["phase"] = "running"
    path.write_text(json.dumps(state, indent=2))
    head = git(scene.repo, "rev-parse", "main")
    workspace = ["--workspace", str(scene.repo)]
    for argv in (
        ["bolt", "run", *workspace, "--resume"],
        ["bolt", "status", *workspace],
        ["bolt", "gate", *workspace, "--approve"],
    ):
        capsys.readouterr()
        assert main(argv) == 2
        assert capsys.readouterr().err == (
            f"{path}: its seal does not match: the bolt run state was not written by "
            "aidlc-review on this machine, or an agent rewrote it; it cannot be trusted, so "
            f"nothing is merged or approved from it. Inspect the run, then remove {path.parent} "
            "and start a new run\n"
        )
    assert git(scene.repo, "rev-parse", "main") == head
    assert scene.squash_subjects() == []


def test_a_sealed_state_of_the_wrong_shape_names_the_key(scene, capsys):
    """Sealed with this machine's key but not a valid state (a bug, or an older tool)."""
    assert main(scene.run_argv("- name: solo\n", scene.agents())) == 0
    root = scene.repo / ".git" / "aidlc-bolt"
    path = root / (root / "current").read_text().strip() / "state.json"
    data = json.loads(path.read_text())
    del data[SEAL_KEY]
    data["units"]["solo"]["status"] = "merge"
    data[SEAL_KEY] = sign(Path(data["workspace"]), SEAL_LABEL, canonical_json(data))
    path.write_text(json.dumps(data))
    capsys.readouterr()
    assert main(["bolt", "status", "--workspace", str(scene.repo)]) == 2
    statuses = ", ".join(s.value for s in UnitStatus)
    assert capsys.readouterr().err == (
        f"{path}: not a valid bolt state: $.units.solo.status: must be one of {statuses}; "
        f"got \"merge\" (did you mean 'merged'?); remove {path.parent} to give the run up\n"
    )


def test_a_developer_that_silences_its_own_defect_with_noqa_merges_nothing(scene, capsys):
    """The unit's base is the branch point: a suppression the developer wrote counts for
    nothing; the unit is held, unmerged, with the finding naming the comment for the person
    at the aggregate gate (who may still accept it: a person's decision)."""
    silenced = {"path": "src/app.py", "text": "import os  # noqa: F401\n", "claim": True}
    agent = scene.agents(solo={"files": [silenced]})
    assert main([*scene.run_argv("- name: solo\n", agent), "--repairer", "none"]) == 1
    unit = scene.state()["units"]["solo"]
    assert (unit["status"], unit["verdict"]) == ("held", "NOT-READY")  # at the gate, unmerged
    findings = [f["finding"] for f in unit["open_findings"]]
    assert any("hidden by `# noqa: F401`" in finding for finding in findings), findings
    assert scene.squash_subjects() == []  # held for a person at the aggregate gate, unmerged
