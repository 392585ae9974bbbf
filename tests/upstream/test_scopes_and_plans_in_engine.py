"""A project lead's choices on an installed harness: ``scope add|remove`` and ``plan`` speak
for the installed code-review, upstream's checks stay green, and re-installs keep the choice."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tests import engine_export
from tests.upstream.engine import UpstreamProject, build_once

from aidlc_review.cli.main import main

pytestmark = pytest.mark.engine  # runs upstream's engine (tests/engine_export.py)


GRID = ".claude/tools/data/scope-grid.json"


def _grid(project) -> dict:
    return json.loads((project.root / GRID).read_text())


def _green(project) -> None:
    assert project.tool("graph", "compile", "--check").code == 0
    assert project.tool("utility", "scope-table", "--check").code == 0
    assert project.tool("utility", "stage-table", "--check").code == 0
    assert re.fullmatch(r"\d+ passed, 0 failed", project.doctor_summary())


@pytest.fixture(scope="session")
def mvp_removed_once(installed_once, shared_tmp) -> UpstreamProject:
    """The installed project after a lead's ``scope remove code-review mvp``, per test run.
    (poc cannot be added: the feature request keeps it without review, ``test_no_stalls.py``.)"""

    def remove(where: Path) -> None:
        project = installed_once.copy_to(where)
        harness = str(project.harness)
        assert main(["scope", "remove", "code-review", "mvp", "--harness", harness]) == 0

    return UpstreamProject(build_once(shared_tmp / "upstream-mvp-removed", remove))


@pytest.fixture
def mvp_removed(mvp_removed_once, tmp_path, on_path) -> UpstreamProject:
    """A copy of the project where a lead took code-review out of ``mvp`` (exit 0, asserted)."""
    return mvp_removed_once.copy_to(tmp_path / "project")


def test_a_lead_takes_code_review_out_of_mvp_and_upstream_follows(mvp_removed):
    _green(mvp_removed)
    assert _grid(mvp_removed)["mvp"]["stages"]["code-review"] == "SKIP"
    scope_table = mvp_removed.ok("utility", "scope-table").stdout
    fresh = json.loads((engine_export.require() / GRID).read_text())["mvp"]["stages"]
    executing = sum(action == "EXECUTE" for action in fresh.values())  # as before install
    shown = rf"\| mvp +\| Standard +\| \(default\) +\| {executing} / {len(fresh) + 1} +\|"
    assert re.search(shown, scope_table)  # 2.5.5: 22 / 33, 2.6.18: 23 / 34


def test_adding_the_scope_again_undoes_it(mvp_removed):
    harness = str(mvp_removed.harness)

    assert main(["scope", "add", "code-review", "mvp", "--harness", harness]) == 0

    _green(mvp_removed)
    assert _grid(mvp_removed)["mvp"]["stages"]["code-review"] == "EXECUTE"


def test_a_reinstall_keeps_the_leads_choice(installed):
    harness = str(installed.harness)
    assert main(["scope", "remove", "code-review", "workshop", "--harness", harness]) == 0

    assert main(["install", "--harness", harness]) == 0

    assert _grid(installed)["workshop"]["stages"]["code-review"] == "SKIP"
    assert _grid(installed)["feature"]["stages"]["code-review"] == "EXECUTE"


def test_code_review_cannot_run_where_code_generation_does_not(installed, capsys):
    code = main(["scope", "add", "code-review", "infra", "--harness", str(installed.harness)])

    assert code == 2
    assert "code-generation does not run there" in capsys.readouterr().err
    assert _grid(installed)["infra"]["stages"]["code-review"] == "SKIP"


def test_plan_says_which_gates_upstream_presents_and_why(installed):
    plan = _plan(installed, "gated")

    by_slug = {s["slug"]: s for s in plan["stages"]}
    assert by_slug["code-generation"]["gate"] == "completion, once per stage"
    assert by_slug["code-review"]["reviewer"] == "aidlc-code-reviewer-agent"
    assert by_slug["code-review"]["passes"] == 2
    assert plan["gates_presented"] == sum(1 for s in plan["stages"] if s["gate"])
    assert "code-generation's completion gate remains" in plan["why"]
    assert plan["plugin_plan_gate_counts"]["per_unit"] >= 1
    autonomous = {s["slug"]: s for s in _plan(installed, "autonomous")["stages"]}
    assert autonomous["code-review"]["passes"] == 3


def _plan(project, mode: str) -> dict:
    args = ["plan", "--scope", "feature", "--mode", mode, "--harness", str(project.harness)]
    done = subprocess.run(
        [sys.executable, "-m", "aidlc_review", *args, "--json"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_install_after_an_upstream_upgrade_reapplies_cleanly(installed):
    """An upgrade replaces upstream's own files (our blocks and numbers gone): re-install."""
    for name in (
        "aidlc-common/stages/construction/code-generation.md",
        "tools/data/stage-graph.json",
    ):
        shutil.copyfile(engine_export.require() / ".claude" / name, installed.harness / name)

    assert main(["install", "--harness", str(installed.harness)]) == 0

    _green(installed)
    graph = json.loads((installed.harness / "tools/data/stage-graph.json").read_text())
    numbers = {n["slug"]: n["number"] for n in graph}
    assert (numbers["code-review"], numbers["build-and-test"]) == ("3.6", "3.7")
    assert main(["uninstall", "--harness", str(installed.harness)]) == 0
    assert installed.status() == ""
