"""The change never decides how it is judged: an edit to a tool's configuration is a finding.

Each tool's descriptor lists where its judgment is configured; a claimed file where that
differs from the unit's base is a major finding of the check that runs the tool, until a
person waives it. What is not the tool's configuration (a project's dependencies, a
fixture in a conftest) changes nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.sensors.support import MYPY_CONFIG, RUFF_CONFIG, commit_all, make_workspace, run_one

PYPROJECT = '[project]\nname = "app"\ndependencies = []\n\n' + RUFF_CONFIG
APP = "import os\n"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return commit_all(
        make_workspace(
            tmp_path / "ws",
            {
                "pyproject.toml": PYPROJECT,
                "setup.cfg": MYPY_CONFIG,
                "src/app.py": APP,
                "conftest.py": "import pytest\n",
            },
        )
    )


def config_findings(ws: Path, claimed: list[str], sensor: str) -> list[tuple[str, str, str]]:
    result = run_one(ws, claimed, sensor, settings={"coverage_threshold": 0})
    return [(f.path, f.severity, f.message) for f in result.findings if f.rule == "config-changed"]


def test_a_ruff_toml_planted_in_a_claimed_folder_is_a_finding_and_hides_nothing(ws: Path):
    (ws / "src/ruff.toml").write_text('[lint]\nignore = ["F401"]\n')
    found = config_findings(ws, ["src/app.py", "src/ruff.toml"], "linter")
    assert found == [
        (
            "src/ruff.toml",
            "major",
            "the change edits ruff's configuration: a new file in src/ruff.toml; the change "
            "never decides how it is judged, so this blocks until a person waives it at the "
            "gate (or the change leaves it as it was at the base)",
        )
    ]


def test_an_edited_tool_table_is_a_finding_but_an_edited_dependency_list_is_not(ws: Path):
    (ws / "pyproject.toml").write_text(PYPROJECT.replace("[]", '["requests"]'))
    assert config_findings(ws, ["pyproject.toml", "src/app.py"], "linter") == []

    (ws / "pyproject.toml").write_text(PYPROJECT + "ignore = ['F401']\n")
    found = config_findings(ws, ["pyproject.toml", "src/app.py"], "linter")
    assert [(path, severity) for path, severity, _ in found] == [("pyproject.toml", "major")]
    assert "ruff's configuration: [tool.ruff] in pyproject.toml" in found[0][2]


def test_an_ini_section_of_the_type_checker_is_its_configuration(ws: Path):
    (ws / "setup.cfg").write_text(MYPY_CONFIG + "ignore_errors = True\n")
    found = config_findings(ws, ["setup.cfg", "src/app.py"], "type-check")
    assert [message.split(";")[0] for _, _, message in found] == [
        "the change edits mypy's configuration: [mypy] in setup.cfg"
    ]


def test_a_conftest_hook_is_pytests_configuration_and_a_fixture_is_not(ws: Path):
    (ws / "conftest.py").write_text(
        "import pytest\n\n\n@pytest.fixture\ndef user():\n    return 'ada'\n"
    )
    assert config_findings(ws, ["conftest.py"], "coverage") == []

    (ws / "conftest.py").write_text(
        "import pytest\n\ncollect_ignore = ['tests/test_app.py']\n\n\n"
        "def pytest_collection_modifyitems(items):\n    items.clear()\n"
    )
    found = config_findings(ws, ["conftest.py"], "coverage")
    assert [message.split(";")[0] for _, _, message in found] == [
        "the change edits pytest's configuration: collect_ignore, "
        "pytest_collection_modifyitems in conftest.py"
    ]


def test_configuration_as_it_stood_at_the_base_is_no_finding(ws: Path):
    claimed = ["conftest.py", "pyproject.toml", "setup.cfg", "src/app.py"]
    for sensor in ("linter", "type-check", "coverage"):
        assert config_findings(ws, claimed, sensor) == []


def located_rules(ws: Path, claimed: list[str], sensor: str) -> list[tuple[str, int | None, str]]:
    result = run_one(ws, claimed, sensor)
    return sorted((f.path, f.line, f.rule or "") for f in result.findings)


def test_ruff_judges_with_the_bases_configuration_not_a_ruff_toml_the_change_plants(ws: Path):
    (ws / "src/ruff.toml").write_text('[lint]\nignore = ["F401"]\n')
    assert located_rules(ws, ["src/app.py", "src/ruff.toml"], "linter") == [
        ("src/app.py", 1, "F401"),
        ("src/ruff.toml", None, "config-changed"),
    ]
    assert (ws / "src/ruff.toml").read_text() == '[lint]\nignore = ["F401"]\n', "left as it was"


def test_mypy_judges_with_the_bases_configuration_not_the_changes_ignore_errors(ws: Path):
    (ws / "src/app.py").write_text('count: int = "three"\n')
    (ws / "setup.cfg").write_text(MYPY_CONFIG + "ignore_errors = True\n")
    assert located_rules(ws, ["setup.cfg", "src/app.py"], "type-check") == [
        ("setup.cfg", None, "config-changed"),
        ("src/app.py", 1, "assignment"),
    ]


def test_a_config_edit_that_keeps_the_rules_judges_the_same_as_before(ws: Path):
    (ws / "src/app.py").write_text("import os\nimport sys\n")
    (ws / "pyproject.toml").write_text(PYPROJECT + "ignore = ['F401']\n")
    found = located_rules(ws, ["pyproject.toml", "src/app.py"], "linter")
    assert found == [
        ("pyproject.toml", None, "config-changed"),
        ("src/app.py", 1, "F401"),
        ("src/app.py", 2, "F401"),
    ]
