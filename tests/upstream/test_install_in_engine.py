"""``install`` into a real upstream project: upstream's own compiler, doctor, generators and
sensor dispatcher judge the result, and ``uninstall`` leaves no trace."""

from __future__ import annotations

import json
import os
import re

import pytest
from tests import engine_export
from tests.upstream.engine import bun_dir

from aidlc_review.cli.main import main

pytestmark = pytest.mark.engine  # runs upstream's engine (tests/engine_export.py)

PLUGIN_SENSORS = {
    f"review-{s}"
    for s in (
        "formatter",
        "secret-scan",
        "coverage",
        "linter",
        "type-check",
        "findings-schema",
        "security",
        "dependencies",
    )
}


def test_upstream_checks_stay_green_after_install(installed):
    assert installed.tool("graph", "compile", "--check").code == 0
    assert re.fullmatch(r"\d+ passed, 0 failed", installed.doctor_summary())
    assert installed.tool("utility", "stage-table", "--check").code == 0
    assert installed.tool("utility", "scope-table", "--check").code == 0
    assert installed.tool("runner-gen", "check").code == 0
    listed = {line.split("\t")[0] for line in installed.ok("sensor", "list").stdout.splitlines()}
    assert listed == _upstream_sensors() | PLUGIN_SENSORS


def _upstream_sensors() -> set[str]:
    """The ids of the engine's own sensors (2.5.5: linter, required-sections, type-check,
    upstream-coverage; 2.6.18 adds claim-sources and traceability): one file each."""
    sensors = engine_export.require() / ".claude" / "sensors"
    return {path.stem.removeprefix("aidlc-") for path in sensors.glob("aidlc-*.md")}


def test_code_review_is_numbered_between_generation_and_test(installed):
    graph = json.loads((installed.harness / "tools/data/stage-graph.json").read_text())
    numbers = {node["slug"]: node["number"] for node in graph}
    assert [numbers[s] for s in ("code-generation", "code-review", "build-and-test")] == [
        "3.5",
        "3.6",
        "3.7",
    ]
    review = next(node for node in graph if node["slug"] == "code-review")
    assert review["mode"] == "inline"
    assert review["lead_agent"] == "aidlc-developer-agent"
    assert review["reviewer"] == "aidlc-code-reviewer-agent"
    assert review["reviewer_max_iterations"] == 2
    assert review["produces"] == ["code-review"]
    assert "plugin" not in review
    generation = next(node for node in graph if node["slug"] == "code-generation")
    assert generation["reviewer"] == "aidlc-architecture-reviewer-agent"  # kept


def test_code_review_runs_only_where_code_generation_does(installed):
    grid = json.loads((installed.harness / "tools/data/scope-grid.json").read_text())
    for scope, row in grid.items():
        stages = row["stages"]
        if stages["code-review"] == "EXECUTE":
            assert stages["code-generation"] == "EXECUTE", scope
    assert grid["feature"]["stages"]["code-review"] == "EXECUTE"
    assert grid["poc"]["stages"]["code-review"] == "SKIP"  # the documented no-review path


def test_install_twice_changes_nothing(installed, capsys):
    before = installed.status()
    capsys.readouterr()

    assert main(["install", "--harness", str(installed.harness)]) == 0

    assert capsys.readouterr().out == ""
    assert installed.status() == before


def test_uninstall_leaves_the_project_as_it_was(installed):
    assert installed.status() != ""

    assert main(["uninstall", "--harness", str(installed.harness)]) == 0

    assert installed.status() == ""


def test_uninstall_refuses_to_delete_a_file_the_user_edited(installed, capsys):
    agent = installed.harness / "agents/aidlc-code-reviewer-agent.md"
    agent.write_text(agent.read_text() + "\nOur team's own note.\n")
    capsys.readouterr()

    assert main(["uninstall", "--harness", str(installed.harness)]) == 1

    assert str(agent) in capsys.readouterr().err
    assert agent.is_file()
    assert (installed.harness / "aidlc-common/stages/construction/code-review.md").is_file()


def test_formatter_sensor_fires_through_upstream_dispatcher(installed):
    (installed.root / "pyproject.toml").write_text("[tool.ruff]\nline-length = 100\n")
    (installed.root / "src").mkdir()
    (installed.root / "src/greet.py").write_text("x   =  1\n")
    installed.birth(label="x y")

    fire = ("sensor", "fire", "review-formatter", "--stage", "code-review")
    installed.ok(*fire, "--output-path", "src/greet.py")
    assert _audit_rows(installed)[-1] == ("SENSOR_FAILED", None)

    installed.env["PATH"] = f"{bun_dir()}{os.pathsep}/usr/bin{os.pathsep}/bin"
    installed.ok(*fire, "--output-path", "src/greet.py")
    assert _audit_rows(installed)[-1] == ("SENSOR_PASSED", "tool-unavailable")


def _audit_rows(project) -> list[tuple[str, str | None]]:
    text = "".join(
        p.read_text() for p in sorted(project.root.glob("aidlc/spaces/*/intents/*/audit/*.md"))
    )
    rows = []
    for block in text.split("\n---\n"):
        event = re.search(r"^\*\*Event\*\*: (SENSOR_\w+)$", block, re.M)
        if event and event.group(1) != "SENSOR_FIRED":
            note = re.search(r"^\*\*Note\*\*: (.+)$", block, re.M)
            rows.append((event.group(1), note.group(1) if note else None))
    return rows
