"""The autonomous Bolt: worktrees per unit, review before merge, squash merges in batch order."""

from __future__ import annotations

import json

from aidlc_review.cli.main import main
from tests.bolt.conftest import git

THREE_UNITS = "- name: auth\n- name: store\n- name: api\n  depends_on: [auth, store]\n"


def test_independent_units_run_concurrently_and_the_dependent_after_them(scene, capsys):
    developer = scene.agents(auth={"sleep": 1.0}, store={"sleep": 1.0})
    code = main(
        [
            "bolt",
            "run",
            "--workspace",
            str(scene.repo),
            "--units",
            str(scene.units(THREE_UNITS)),
            "--developer",
            developer,
            "--reviewer",
            developer,
            "--jobs",
            "2",
            "--json",
        ]
    )
    captured = capsys.readouterr()
    assert code == 0, captured.err
    out = json.loads(captured.out)
    assert [(u["unit"], u["status"], u["verdict"], u["passes_used"]) for u in out["units"]] == [
        ("auth", "merged", "READY", 1),
        ("store", "merged", "READY", 1),
        ("api", "merged", "READY", 1),
    ]

    starts = {e["unit"]: e["time"] for e in scene.entries(role="developer", event="start")}
    ends = {e["unit"]: e["time"] for e in scene.entries(role="developer", event="end")}
    assert starts["auth"] < ends["store"] and starts["store"] < ends["auth"]  # overlapped
    assert starts["api"] > max(ends["auth"], ends["store"])
    api_start = scene.entries(role="developer", event="start", unit="api")[0]
    assert api_start["seen"] == ["auth.txt", "store.txt"]  # its base has both dependencies merged

    reviews = scene.entries(role="reviewer")
    assert {r["unit"] for r in reviews} == {"auth", "store", "api"}
    for review in reviews:
        assert "/.git/aidlc-bolt/" in review["workspace"] and review["workspace"].endswith(
            review["unit"]
        )
    merged_at_review = {r["unit"]: r["merged"] for r in reviews}
    assert merged_at_review["auth"] == merged_at_review["store"] == []
    assert sorted(merged_at_review["api"]) == sorted(
        [s for s in scene.squash_subjects() if not s.endswith(": api")]
    )

    run_id8 = out["run"]
    assert scene.squash_subjects() == [
        f"bolt({run_id8}): api",
        f"bolt({run_id8}): store",
        f"bolt({run_id8}): auth",
    ]
    tree = git(scene.repo, "ls-tree", "-r", "--name-only", "main").split()
    assert {
        "src/auth.txt",
        "src/store.txt",
        "src/api.txt",
        "aidlc-docs/construction/api/code-review/code-review-findings.json",
        "aidlc-docs/construction/api/code-generation/source-manifest.json",
    } <= set(tree)
    assert not [p for p in tree if ".aidlc-engine" in p]
    assert (scene.repo / "src" / "api.txt").read_text() == "# unit api\nVALUE = 1\n"
    assert git(scene.repo, "status", "--porcelain") == ""


def run_bolt(scene, units_text, jobs="2", **behaviour):
    agent = scene.agents(**behaviour)
    return main(
        [
            "bolt",
            "run",
            "--workspace",
            str(scene.repo),
            "--units",
            str(scene.units(units_text)),
            "--developer",
            agent,
            "--reviewer",
            agent,
            "--jobs",
            jobs,
            "--json",
        ]
    )


def test_a_not_ready_unit_is_held_for_the_gate_and_no_reviewer_runs_at_settlement(scene, capsys):
    units = "- name: quick\n- name: slowfix\n- name: stuck\n- name: later\n  depends_on: [stuck]\n"
    code = run_bolt(scene, units, slowfix={"bug": True, "fix_on_repair": True}, stuck={"bug": True})
    out = json.loads(capsys.readouterr().out)
    assert code == 1
    rows = {u["unit"]: u for u in out["units"]}
    assert [(n, rows[n]["status"], rows[n]["verdict"], rows[n]["passes_used"]) for n in rows] == [
        ("quick", "merged", "READY", 1),
        ("slowfix", "merged", "READY", 2),
        ("stuck", "held", "NOT-READY", 3),
        ("later", "blocked", None, 0),
    ]
    assert [
        (f["id"], f["severity"], f["path"], f["finding"]) for f in rows["stuck"]["open_findings"]
    ] == [("CR-001", "major", "src/stuck.txt", "BUG flag is set")]
    assert rows["later"]["problems"] == ["waiting for stuck (held)"]
    assert [len(scene.entries(role="reviewer", unit=u)) for u in ("quick", "slowfix", "stuck")] == [
        1,
        2,
        3,
    ]
    assert len(scene.entries(role="repairer", unit="stuck")) == 2
    assert [s.split(": ")[1] for s in scene.squash_subjects()] == ["slowfix", "quick"]
    assert not (scene.repo / "src" / "stuck.txt").exists()

    agent_calls = len(scene.entries())
    assert main(["bolt", "status", "--workspace", str(scene.repo)]) == 0
    status = capsys.readouterr().out
    assert (
        "  stuck: held (NOT-READY, 3 pass(es), attempt 1)\n"
        "      CR-001 major src/stuck.txt: BUG flag is set" in status
    )
    assert (
        main(["bolt", "gate", "--workspace", str(scene.repo), "--approve", "--unit", "stuck"]) == 0
    )
    assert len(scene.entries()) == agent_calls  # settlement and the gate ran no agent at all
    assert [s.split(": ")[1] for s in scene.squash_subjects()] == ["stuck", "slowfix", "quick"]
    assert (scene.repo / "src" / "stuck.txt").read_text() == "# unit stuck\nBUG = True\n"

    capsys.readouterr()
    assert main(["bolt", "run", "--workspace", str(scene.repo), "--resume", "--json"]) == 0
    later = {u["unit"]: u for u in json.loads(capsys.readouterr().out)["units"]}["later"]
    assert (later["status"], later["verdict"]) == ("merged", "READY")
    assert len(scene.entries(role="reviewer", unit="stuck")) == 3  # nothing finished is redone
    assert main(["bolt", "gate", "--workspace", str(scene.repo), "--approve"]) == 0
    assert scene.state()["phase"] == "done"
    assert git(scene.repo, "worktree", "list", "--porcelain").count("worktree ") == 1


def test_request_changes_reopens_only_that_unit_with_a_fresh_budget(scene, capsys):
    assert run_bolt(scene, "- name: good\n- name: stuck\n", stuck={"bug": True}) == 1
    reviews_of_good = len(scene.entries(role="reviewer", unit="good"))
    assert main(["bolt", "gate", "--workspace", str(scene.repo), "--request-changes"]) == 2
    assert capsys.readouterr().err.endswith(
        "--request-changes needs --unit U (it reopens exactly one unit)\n"
    )
    assert (
        main(
            ["bolt", "gate", "--workspace", str(scene.repo), "--request-changes", "--unit", "stuck"]
        )
        == 0
    )
    scene.agents(stuck={"bug": True, "fix_on_repair": True})
    capsys.readouterr()
    assert main(["bolt", "run", "--workspace", str(scene.repo), "--resume", "--json"]) == 0
    rows = {u["unit"]: u for u in json.loads(capsys.readouterr().out)["units"]}
    assert (rows["stuck"]["status"], rows["stuck"]["attempt"], rows["stuck"]["passes_used"]) == (
        "merged",
        2,
        2,
    )
    assert len(scene.entries(role="reviewer", unit="good")) == reviews_of_good
    assert len(scene.entries(role="developer", unit="stuck", event="start")) == 1
    assert (scene.repo / "src" / "stuck.txt").read_text() == "# unit stuck\nVALUE = 2\n"

    # A merged unit can be reopened too: its second merge carries only what changed since.
    assert (
        main(
            ["bolt", "gate", "--workspace", str(scene.repo), "--request-changes", "--unit", "good"]
        )
        == 0
    )
    assert main(["bolt", "run", "--workspace", str(scene.repo), "--resume"]) == 0
    assert [s.split(": ")[1] for s in scene.squash_subjects()] == ["good", "stuck", "good"]
    findings = scene.repo / "aidlc-docs/construction/good/code-review/code-review-findings.json"
    assert json.loads(findings.read_text())["attempt"] == 2
    assert main(["bolt", "gate", "--workspace", str(scene.repo), "--approve"]) == 0
