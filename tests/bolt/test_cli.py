"""The bolt commands' edges: zero units, bad input, one run at a time."""

from __future__ import annotations

import json
import re

from aidlc_review.cli.main import main
from tests.bolt.conftest import git


def test_without_units_the_stage_is_reviewed_once_in_the_main_workspace(scene, capsys):
    agent = scene.agents()
    code = main(
        [
            "bolt",
            "run",
            "--workspace",
            str(scene.repo),
            "--developer",
            agent,
            "--reviewer",
            agent,
            "--json",
        ]
    )
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert [(u["unit"], u["status"], u["verdict"], u["passes_used"]) for u in out["units"]] == [
        ("(stage)", "reviewed", "READY", 1)
    ]
    reviews = scene.entries(role="reviewer")
    assert [(r["unit"], r["workspace"]) for r in reviews] == [("", str(scene.repo.resolve()))]
    assert (scene.repo / "aidlc-docs/construction/code-review/code-review-findings.json").is_file()
    assert (scene.repo / "src" / "stage.txt").is_file()
    assert git(scene.repo, "branch", "--format=%(refname:short)").split() == ["main"]
    assert git(scene.repo, "rev-list", "--count", "main").strip() == "1"
    assert main(["bolt", "gate", "--workspace", str(scene.repo), "--approve", "--by", "lead"]) == 0
    assert scene.state()["phase"] == "done"
    assert len(scene.entries(role="reviewer")) == 1
    # the aggregate decision and the stage's own record both say when and by whom
    (decision,) = scene.state()["gate"]
    assert (decision["decision"], decision["unit"], decision["by"]) == ("approve", None, "lead")
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", decision["at"])
    record = scene.repo / "aidlc-docs/construction/code-review/code-review-findings.json"
    (approval,) = json.loads(record.read_text())["gate"]
    assert (approval["decision"], approval["by"]) == ("approve", "lead")


def test_a_bad_units_file_is_refused_before_anything_runs(scene, capsys):
    agent = scene.agents()
    units = scene.units("- name: a\n  depends_on: [b]\n- name: b\n  depends_on: [a]\n")
    assert (
        main(
            [
                "bolt",
                "run",
                "--workspace",
                str(scene.repo),
                "--units",
                str(units),
                "--developer",
                agent,
            ]
        )
        == 2
    )
    assert capsys.readouterr().err == f"{units}:1: $: dependency cycle: a --> b --> a\n"
    assert scene.entries() == []
    assert not (scene.repo / ".git" / "aidlc-bolt" / "current").exists()


def test_usage_errors_name_what_is_wrong(scene, tmp_path, capsys):
    repo = str(scene.repo)
    assert main(["bolt", "run", "--workspace", repo, "--resume"]) == 2
    assert (
        capsys.readouterr().err
        == f"{scene.repo.resolve()}: no bolt run recorded in this repository\n"
    )
    assert main(["bolt", "run", "--workspace", repo]) == 2
    assert (
        capsys.readouterr().err
        == "bolt run: --developer command:CMD is required (unless --resume)\n"
    )
    assert main(["bolt", "run", "--workspace", repo, "--developer", "claude -p"]) == 2
    assert capsys.readouterr().err == "--developer 'claude -p': must be command:CMD\n"
    assert main(["bolt", "run", "--workspace", str(tmp_path), "--developer", "command:true"]) == 2
    assert capsys.readouterr().err == f"--workspace {tmp_path}: not a git repository\n"
    assert main(["bolt", "status", "--workspace", repo]) == 2
    capsys.readouterr()


def test_a_second_run_waits_for_the_first_to_be_decided(scene, capsys):
    agent = scene.agents(stuck={"bug": True})
    assert main(scene.run_argv("- stuck\n", agent)) == 1
    run = scene.state()["run_id"][:8]
    capsys.readouterr()
    assert main(["bolt", "run", "--workspace", str(scene.repo), "--developer", agent]) == 2
    assert capsys.readouterr().err == (
        f"bolt run {run} in {scene.repo.resolve()} is not finished (phase gate); continue it with "
        "'bolt run --resume' or decide its gate with 'bolt gate'\n"
    )
    assert (
        main(["bolt", "gate", "--workspace", str(scene.repo), "--approve", "--unit", "nope"]) == 2
    )
    assert (
        capsys.readouterr().err == f"--unit 'nope': not a unit of bolt run {run} (units: stuck)\n"
    )


def test_a_failed_developer_fails_its_unit_blocks_dependents_and_resume_retries(scene, capsys):
    units = scene.units("- name: base\n- name: top\n  depends_on: [base]\n- name: side\n")
    agent = scene.agents(base={"fail": True})
    argv = [
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
        "--json",
    ]
    assert main(argv) == 1
    rows = {u["unit"]: u for u in json.loads(capsys.readouterr().out)["units"]}
    assert (rows["base"]["status"], rows["base"]["problems"]) == (
        "failed",
        ["unit base: developer agent: agent exited with status 3"],
    )
    assert (rows["top"]["status"], rows["top"]["problems"]) == (
        "blocked",
        ["waiting for base (failed)"],
    )
    assert rows["side"]["status"] == "merged"
    scene.agents()
    assert main(["bolt", "run", "--workspace", str(scene.repo), "--resume"]) == 0
    assert [s.split(": ")[1] for s in scene.squash_subjects()] == ["top", "base", "side"]


def test_uncommitted_changes_in_the_workspace_stop_the_merge_until_resumed(scene, capsys):
    # made while the run is under way (a dirty worktree before it starts is refused at once)
    edit = {"path": str(scene.repo / "README.md"), "text": "# local edit\n"}
    agent = scene.agents(solo={"files": [edit]})
    argv = scene.run_argv("- name: solo\n", agent)
    assert main(argv) == 2
    assert capsys.readouterr().err.endswith(
        f"{scene.repo.resolve()}: uncommitted changes to tracked files block the merge of solo: "
        "README.md; commit or stash them, then run 'bolt run --resume'\n"
    )
    assert scene.state()["units"]["solo"]["status"] == "finalized"
    git(scene.repo, "checkout", "--", "README.md")
    assert main(["bolt", "run", "--workspace", str(scene.repo), "--resume"]) == 0
    assert len(scene.squash_subjects()) == 1
    assert len(scene.entries(role="reviewer")) == 1


def test_another_target_branch_is_merged_in_a_worktree_of_its_own(scene, capsys):
    agent = scene.agents()
    argv = scene.run_argv("- name: solo\n", agent, "--target", "integration")
    assert main(argv) == 0
    assert git(scene.repo, "branch", "--show-current").strip() == "main"
    assert git(scene.repo, "rev-list", "--count", "main").strip() == "1"
    assert git(scene.repo, "log", "--format=%s", "-1", "integration").startswith("bolt(")
    assert not (scene.repo / "src").exists()
    assert main(["bolt", "gate", "--workspace", str(scene.repo), "--approve"]) == 0
    assert git(scene.repo, "worktree", "list", "--porcelain").count("worktree ") == 1


def test_resume_keeps_the_recorded_settings(scene, capsys):
    assert (
        main(
            [
                "bolt",
                "run",
                "--workspace",
                str(scene.repo),
                "--resume",
                "--developer",
                "command:true",
                "--target",
                "x",
            ]
        )
        == 2
    )
    assert capsys.readouterr().err == (
        "bolt run --resume continues the recorded run as it was started; "
        "drop --developer, --target\n"
    )


def test_abandon_lets_a_new_run_start_and_keeps_the_old_one_for_inspection(scene, capsys):
    agent = scene.agents(stuck={"fail": True})
    units = str(scene.units("- good\n- stuck\n"))
    repo = str(scene.repo)
    first = ["bolt", "run", "--workspace", repo, "--units", units, "--developer", agent]
    assert main([*first, "--reviewer", agent, "--target", "integration"]) == 1
    old = scene.state()
    assert old["units"]["stuck"]["status"] == "failed"
    capsys.readouterr()
    assert main(["bolt", "run", "--workspace", repo, "--developer", agent]) == 2
    assert "is not finished (phase gate)" in capsys.readouterr().err

    assert main(["bolt", "abandon", "--workspace", repo]) == 0
    run_dir = scene.repo.resolve() / ".git" / "aidlc-bolt" / old["run_id"][:8]
    assert capsys.readouterr().err == (
        f"abandoned bolt run {old['run_id'][:8]}; its state and unit worktrees are kept in "
        f"{run_dir}\n"
    )
    assert scene.state()["phase"] == "abandoned"
    assert (run_dir / "worktrees" / "stuck").is_dir()
    assert main(["bolt", "abandon", "--workspace", repo]) == 2
    assert capsys.readouterr().err == f"bolt run {old['run_id'][:8]} is already abandoned\n"
    assert main(["bolt", "run", "--workspace", repo, "--resume"]) == 2
    assert capsys.readouterr().err == (
        f"bolt run {old['run_id'][:8]} was abandoned; start a new one with 'bolt run'\n"
    )

    scene.agents()
    assert main([*first, "--reviewer", agent, "--target", "integration"]) == 0
    new = scene.state()
    assert new["run_id"] != old["run_id"]
    assert [u["status"] for u in new["units"].values()] == ["merged", "merged"]
    assert json.loads((run_dir / "state.json").read_text())["phase"] == "abandoned"


def test_a_target_git_cannot_name_or_an_unknown_base_is_a_usage_error(scene, capsys):
    repo = str(scene.repo)
    run = ["bolt", "run", "--workspace", repo, "--developer", "command:true"]
    assert main([*run, "--target", "foo..bar"]) == 2
    assert capsys.readouterr().err == "--target 'foo..bar': not a valid git branch name\n"
    assert main([*run, "--target=-x"]) == 2
    assert capsys.readouterr().err == "--target '-x': not a valid git branch name\n"
    assert main([*run, "--base", "nope"]) == 2
    assert capsys.readouterr().err == "--base 'nope': unknown revision\n"
    assert not (scene.repo / ".git" / "aidlc-bolt" / "current").exists()
