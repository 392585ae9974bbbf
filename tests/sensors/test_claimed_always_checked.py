"""A claimed file is always checked: a workspace's ruff excludes never turn a check into a pass."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.sensors.support import fake_tool, located, make_workspace, run_one

EXCLUDING = (
    "[tool.ruff]\nforce-exclude = true\nextend-exclude = ['src']\n\n"
    "[tool.ruff.lint]\nselect = ['E', 'F']\n"
)
NO_FILES = "warning: No Python files found under the given path(s)"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return make_workspace(
        tmp_path / "ws", {"pyproject.toml": EXCLUDING, "src/app.py": "import os\nx=1\n"}
    )


def test_the_linter_checks_a_claimed_file_the_workspace_force_excludes(ws: Path) -> None:
    result = run_one(ws, ["src/app.py"], "linter")
    assert result.status == "failed"
    assert located(result) == [("src/app.py", 1, "F401", "major")]
    assert result.command == (
        "ruff check --output-format json --no-fix --exit-zero --no-force-exclude --ignore-noqa "
        "--no-cache "
        "-- src/app.py"
    )


def test_the_formatter_checks_a_claimed_file_the_workspace_force_excludes(ws: Path) -> None:
    result = run_one(ws, ["src/app.py"], "formatter")
    assert result.status == "failed"
    assert located(result) == [("src/app.py", 2, "formatter/unformatted", "minor")]


@pytest.mark.parametrize(
    ("sensor", "stdout"), [("linter", "[]"), ("formatter", "")], ids=["check", "format"]
)
def test_ruff_finding_no_python_files_is_skipped_never_passed(
    ws: Path, tmp_path: Path, sensor: str, stdout: str
) -> None:
    fake_tool(
        tmp_path / "bin",
        "ruff",
        f"import sys\nprint({stdout!r})\nprint({NO_FILES!r}, file=sys.stderr)\n",
    )
    result = run_one(ws, ["src/app.py"], sensor, settings={"tool_path": str(tmp_path / "bin")})
    assert (result.status, result.reason, result.findings) == (
        "skipped",
        f"ruff checked none of the claimed files ({NO_FILES})",
        (),
    )
    again = run_one(ws, ["src/app.py"], sensor, settings={"tool_path": str(tmp_path / "bin")})
    assert again.status == "skipped"  # nothing was cached as clean
