"""``review.inputs.project``: the project one review run looks at, read once (real files,
real git, a real ``review run`` with a scripted repairer)."""

from __future__ import annotations

import json
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from aidlc_review.review.inputs import workspace_settings
from aidlc_review.review.inputs.paths import RecordPaths
from aidlc_review.review.inputs.project import Project
from aidlc_review.review.inputs.unit import UnitContext
from aidlc_review.sensors.descriptors import where_tests_are
from tests.review.workspace import (
    CLEAN,
    LINT_ERROR,
    PYPROJECT,
    UNIT,
    findings_doc,
    git,
    make_workspace,
    review_args,
    script_agent,
    write,
)

APP = "src/orders/app.py"
TABLE = "\n[tool.aidlc-review]\ncoverage-threshold = 50\nagent-budget-usd = 5.0\n"
LOWERED = "\n[tool.aidlc-review]\ncoverage-threshold = 50\n\n[tool.aidlc-review.severity.rules]\n"
LOWERED += 'F401 = "minor"\n'  # the change's own tuning
FIXER = f"""
    import pathlib, sys
    sys.stdin.read()
    pathlib.Path({APP!r}).write_text({CLEAN!r})
"""


def head(ws: Path) -> str:
    done = subprocess.run(["git", "-C", str(ws), "rev-parse", "HEAD"], capture_output=True)
    return done.stdout.decode().strip()


def commit(ws: Path) -> None:
    git(ws, "add", "-A")
    git(ws, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "work")


def test_a_python_workspace_is_a_python_project_with_its_venv_s_bin_dir(tmp_path: Path) -> None:
    write(
        tmp_path / "pyproject.toml", PYPROJECT + '\n[tool.aidlc-review]\ntest-command = "pytest"\n'
    )
    (tmp_path / ".venv" / "bin").mkdir(parents=True)

    project = Project.read(tmp_path, UNIT)

    assert project.ecosystems == ("python",)
    assert project.bin_dirs == (tmp_path / ".venv" / "bin",)
    assert project.test_command(None) == "pytest"
    assert project.own.name == "pyproject.toml"


def test_an_npm_workspace_is_javascript_and_typescript_with_its_settings_in_package_json(
    tmp_path: Path,
) -> None:
    package = {"name": "orders", "aidlc-review": {"test-command": ["npx", "vitest", "run"]}}
    write(tmp_path / "package.json", json.dumps(package))
    write(tmp_path / "tsconfig.json", "{}\n")
    (tmp_path / "node_modules" / ".bin").mkdir(parents=True)

    project = Project.read(tmp_path, UNIT)

    assert project.ecosystems == ("javascript", "typescript")
    assert project.bin_dirs == (tmp_path / "node_modules" / ".bin",)
    assert project.test_command(None) == ["npx", "vitest", "run"]
    assert project.own.name == "package.json"


def test_a_go_workspace_is_a_go_project_with_its_settings_in_aidlc_review_toml(
    tmp_path: Path,
) -> None:
    write(tmp_path / "go.mod", "module example.com/orders\n\ngo 1.22\n")
    write(tmp_path / ".aidlc-review.toml", 'test-command = "go test ./..."\n')

    project = Project.read(tmp_path, UNIT)

    assert (project.ecosystems, project.bin_dirs) == (("go",), ())
    assert project.test_command(None) == "go test ./..."


def test_a_workspace_with_no_project_file_has_no_ecosystem_and_default_settings(
    tmp_path: Path,
) -> None:
    project = Project.read(tmp_path, None)
    assert (project.ecosystems, project.own.text) == ((), None)
    assert project.unit_settings.base_revision is None


def test_the_project_s_test_files_are_what_its_test_runners_descriptors_call_tests(
    tmp_path: Path,
) -> None:
    for name in (
        "src/orders/app.py", "tests/test_app.py", "tests/conftest.py", "src/cart.ts",
        "src/cart.test.ts", "web/__tests__/view.tsx", "pkg/db_test.go", "pkg/db.go",
        "node_modules/lib/index.test.js", ".venv/lib/test_site.py",
    ):  # fmt: skip
        write(tmp_path / name, "\n")

    project = Project.read(tmp_path, UNIT)

    # the globs are the coverage manifest's `tests` (the vitest, jest, node and pytest
    # runners' test files), read once from the shipped descriptors
    assert project.test_globs == where_tests_are()
    assert project.test_files == (
        "pkg/db_test.go",
        "src/cart.test.ts",
        "tests/conftest.py",
        "tests/test_app.py",
        "web/__tests__/view.tsx",
    )
    assert project.is_test_file("tests/test_app.py") and not project.is_test_file("src/cart.ts")


def test_in_git_an_ignored_file_is_not_one_of_the_project_s_tests(tmp_path: Path) -> None:
    write(tmp_path / ".gitignore", "build/\n")
    write(tmp_path / "tests/test_app.py", "\n")
    write(tmp_path / "build/lib/tests/test_app.py", "\n")
    write(tmp_path / "test_new.py", "\n")  # untracked, not ignored: a test all the same
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".gitignore", "tests/test_app.py")

    assert Project.read(tmp_path, UNIT).test_files == ("test_new.py", "tests/test_app.py")


def test_the_test_files_are_read_once_per_run(tmp_path: Path) -> None:
    write(tmp_path / "tests/test_app.py", "\n")
    project = Project.read(tmp_path, UNIT)
    assert project.test_files == ("tests/test_app.py",)

    write(tmp_path / "tests/test_later.py", "\n")

    assert project.test_files == ("tests/test_app.py",)
    assert project.for_unit("other").test_files == ("tests/test_app.py",)
    assert Project.read(tmp_path, UNIT).test_files == ("tests/test_app.py", "tests/test_later.py")


def test_a_change_s_own_edited_table_does_not_judge_it_the_base_s_does(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", {APP: CLEAN})
    (ws / "pyproject.toml").write_text(
        PYPROJECT + "\n[tool.aidlc-review]\ncoverage-threshold = 90\n"
    )
    commit(ws)
    base = head(ws)
    (ws / "pyproject.toml").write_text(
        PYPROJECT + "\n[tool.aidlc-review]\ncoverage-threshold = 10\n"
    )

    project = Project.read(ws, UNIT)
    in_force = project.in_force(base)

    assert project.unit_settings.coverage_threshold == 10  # what the change says
    assert in_force.settings.for_unit(UNIT).coverage_threshold == 90  # what judges it
    assert in_force.note == (
        f"pyproject.toml: [tool.aidlc-review] differs from the unit's base {base[:12]}: the "
        "review uses the table at the base (a change does not configure its own review); the "
        "change's own settings take effect once it is on the base"
    )
    assert project.in_force(None).settings == project.settings  # outside git: its own


def test_an_edit_to_the_table_after_the_run_began_does_not_change_the_run(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", {APP: CLEAN})
    (ws / "pyproject.toml").write_text(PYPROJECT + TABLE)
    ctx = UnitContext.load(RecordPaths.resolve(ws, UNIT), None, "gated")

    (ws / "pyproject.toml").write_text(
        PYPROJECT + "\n[tool.aidlc-review]\nagent-budget-usd = 500.0\n"
    )

    assert ctx.project.unit_settings.agent_budget_usd == 5.0
    assert ctx.sensor_settings()["coverage_threshold"] == 50


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How often each settings text (by where it came from) is parsed: the real parser,
    counted."""
    counted: Counter[str] = Counter()
    parse = workspace_settings._parse_named

    def counting(name: str, text: str, shown: str, workspace: Path) -> object:
        counted[shown.replace(str(workspace), "<ws>")] += 1
        return parse(name, text, shown, workspace)

    monkeypatch.setattr(workspace_settings, "_parse_named", counting)
    return counted


def test_a_two_pass_review_run_parses_the_settings_once(
    tmp_path: Path, parses: Counter[str]
) -> None:
    ws = make_workspace(tmp_path / "ws", {APP: LINT_ERROR})
    (ws / "pyproject.toml").write_text(PYPROJECT + TABLE)  # the team's table, on the base
    commit(ws)
    fixer = script_agent(tmp_path / "agents" / "fixer.py", FIXER)

    assert main(review_args(ws, "--repairer", fixer)) == 0

    assert len(findings_doc(ws)["passes"]) == 2  # two passes, one repair between them
    assert parses == {"<ws>/pyproject.toml": 1}  # the base holds the same bytes: not again


def test_a_run_whose_change_edits_its_own_table_parses_each_table_once_and_the_base_s_judges(
    tmp_path: Path, parses: Counter[str], capsys: pytest.CaptureFixture[str]
) -> None:
    ws = make_workspace(tmp_path / "ws", {APP: CLEAN}, claims=[APP, "pyproject.toml"])
    (ws / "pyproject.toml").write_text(PYPROJECT + TABLE)
    commit(ws)
    base = head(ws)
    (ws / APP).write_text(LINT_ERROR)
    (ws / "pyproject.toml").write_text(PYPROJECT + LOWERED)  # the change lowers F401

    assert main(review_args(ws)) == 1

    [finding] = findings_doc(ws)["passes"][-1]["findings"]
    assert (finding["rule"], finding["severity"]) == ("F401", "major")
    assert "[tool.aidlc-review] differs from the unit's base" in capsys.readouterr().err
    assert parses == {"<ws>/pyproject.toml": 1, f"pyproject.toml at {base[:12]}": 1}


def test_the_projects_bin_dirs_are_the_ones_the_sensors_look_in(tmp_path: Path) -> None:
    from aidlc_review.review.inputs.project import BIN_DIRS, bin_dirs
    from aidlc_review.sensors import described

    assert BIN_DIRS == described.BIN_DIRS
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    assert bin_dirs(tmp_path) == (tmp_path / ".venv" / "bin",)


def test_the_projects_test_globs_are_the_test_runners_descriptors(tmp_path: Path) -> None:
    from aidlc_review.review.source.tool_names import tool_names
    from aidlc_review.sensors.descriptors import where_tests_are

    tool_names.cache_clear()  # as a new process asks: the descriptors read, then remembered
    first = Project.read(tmp_path, None).test_globs
    tool_names.cache_clear()
    assert first == Project.read(tmp_path, None).test_globs == where_tests_are()
    assert first  # the shipped test runners say where tests are
