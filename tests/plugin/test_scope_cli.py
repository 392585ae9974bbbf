"""``scope show|add|remove``: a lead decides where review happens without editing YAML."""

from __future__ import annotations

import json

from aidlc_review.cli.main import main
from tests.plugin.trees import copy_project, snapshot

REVIEW = "stages/construction/code-review.md"


def poc_code_generation_gates(capsys, root) -> list[dict]:
    capsys.readouterr()
    assert (
        main(["plan", "--scope", "poc", "--mode", "gated", "--harness", str(root), "--json"]) == 0
    )
    stages = {s["slug"]: s for s in json.loads(capsys.readouterr().out)["stages"]}
    return stages["code-generation"]["gates"]


def test_add_then_remove_code_review_in_poc_replaces_then_restores_the_gate(tmp_path, capsys):
    root = copy_project(tmp_path)
    original = (root / REVIEW).read_bytes()
    assert poc_code_generation_gates(capsys, root)[1]["status"] == "active"

    assert main(["scope", "add", "code-review", "poc", "--harness", str(root)]) == 0
    assert capsys.readouterr().err == (
        f"code-review now executes in scope poc ({REVIEW})\n"
        f"recompiled 9 stages into {root / 'tools' / 'data'}\n"
    )
    added = (root / REVIEW).read_bytes()
    assert added.replace(b"  - workshop\n  - poc\n", b"  - workshop\n") == original
    assert poc_code_generation_gates(capsys, root)[1] == {
        "kind": "completion", "per": "unit", "status": "suppressed", "replaced_by": "code-review",
    }  # fmt: skip
    grid = json.loads((root / "tools" / "data" / "scope-grid.json").read_text())
    assert grid["poc"]["stages"]["code-review"] == "EXECUTE"

    assert main(["scope", "remove", "code-review", "poc", "--harness", str(root)]) == 0
    assert (root / REVIEW).read_bytes() == original
    assert poc_code_generation_gates(capsys, root)[1]["status"] == "active"


def test_adding_twice_changes_nothing_the_second_time(tmp_path, capsys):
    root = copy_project(tmp_path)
    assert main(["scope", "add", "code-review", "poc", "--harness", str(root)]) == 0
    before = snapshot(root)
    capsys.readouterr()
    assert main(["scope", "add", "code-review", "poc", "--harness", str(root)]) == 0
    assert (
        capsys.readouterr().err == "code-review already executes in scope poc; nothing to change\n"
    )
    assert snapshot(root) == before


def test_review_cannot_run_where_code_generation_does_not(tmp_path, capsys):
    root = copy_project(tmp_path)
    assert main(["scope", "remove", "code-generation", "feature", "--harness", str(root)]) == 2
    err = capsys.readouterr().err
    assert err == (
        "stages/construction/code-review.md:58: scopes[1]: executes in scope 'feature' "
        "where the reviewed stage 'code-generation' does not\n"
    )
    assert b"  - feature\n" in (root / "stages/construction/code-generation.md").read_bytes()
    assert not (root / "tools").exists()


def test_unknown_stage_and_scope_are_refused_with_suggestions(tmp_path, capsys):
    root = copy_project(tmp_path)
    before = snapshot(root)
    assert main(["scope", "add", "code-reviw", "poc", "--harness", str(root)]) == 2
    assert capsys.readouterr().err == "unknown stage 'code-reviw' (did you mean 'code-review'?)\n"
    assert main(["scope", "add", "code-review", "pocc", "--harness", str(root)]) == 2
    assert capsys.readouterr().err == (
        "no scope file scopes/aidlc-pocc.md for scope 'pocc' (did you mean 'poc'?)\n"
    )
    assert snapshot(root) == before


def test_show_without_a_name_gives_one_line_per_scope(capsys):
    assert main(["scope", "show"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == [
        "scope", "cap", "stages", "review", "stages", "gated", "(unit/stage)",
        "autonomous", "(unit/stage)",
    ]  # fmt: skip
    assert len(lines) == 12
    rows = {line.split()[0]: line.split() for line in lines[1:]}
    assert rows["feature"] == ["feature", "-", "9", "code-review", "5/4", "4/5"]
    assert rows["poc"] == ["poc", "advisory", "3", "-", "2/2", "1/3"]
    assert rows["bugfix"] == ["bugfix", "advisory", "4", "code-review", "2/2", "1/3"]


def test_show_one_scope_prints_both_modes(capsys):
    assert main(["scope", "show", "bugfix"]) == 0
    out = capsys.readouterr().out
    assert "scope bugfix, gated construction (review cap: advisory)" in out
    assert "scope bugfix, autonomous construction (review cap: advisory)" in out
    assert main(["scope", "show", "bugfix", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert list(doc) == ["bugfix"] and list(doc["bugfix"]) == ["gated", "autonomous"]
