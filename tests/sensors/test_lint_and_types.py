"""linter (ruff check) and type-check (mypy): findings on claimed files only."""

from __future__ import annotations

from pathlib import Path

import pytest

from aidlc_review.sensors.context import is_detected
from tests.sensors.support import (
    MYPY_CONFIG,
    RUFF_CONFIG,
    located,
    make_workspace,
    project_manifest,
    run_one,
)

LINTY = "import os\n\n\ndef f():\n    return undefined_name\n"


def test_ruff_check_findings_are_reported_on_claimed_files_only(tmp_path: Path) -> None:
    ws = make_workspace(
        tmp_path / "ws",
        {
            "pyproject.toml": RUFF_CONFIG,
            "src/a.py": LINTY,
            "src/unclaimed.py": LINTY,
            "src/ok.py": "x = 1\n",
        },
    )
    result = run_one(ws, ["src/a.py", "src/ok.py"], "linter")
    assert result.status == "failed"
    assert result.command == (
        "ruff check --output-format json --no-fix --exit-zero --no-force-exclude --ignore-noqa "
        "--no-cache "
        "-- <2 files>"
    )
    assert located(result) == [("src/a.py", 1, "F401", "major"), ("src/a.py", 5, "F821", "major")]
    assert [f.message for f in result.findings] == [
        "F401 `os` imported but unused (https://docs.astral.sh/ruff/rules/unused-import)",
        "F821 Undefined name `undefined_name` (https://docs.astral.sh/ruff/rules/undefined-name)",
    ]


def test_rule_severities_come_from_the_longest_matching_prefix(tmp_path: Path) -> None:
    config = RUFF_CONFIG.replace("['E', 'F']", "['E', 'F', 'W']")
    ws = make_workspace(tmp_path / "ws", {"pyproject.toml": config, "a.py": "x = 1 \ny = (\n"})
    result = run_one(ws, ["a.py"], "linter")
    assert {(f.rule, f.severity) for f in result.findings} >= {("invalid-syntax", "critical")}


def test_a_clean_claimed_file_passes(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", {"pyproject.toml": RUFF_CONFIG, "a.py": "x = 1\n"})
    result = run_one(ws, ["a.py"], "linter")
    assert (result.status, result.findings, result.tool) == ("passed", (), "ruff")
    assert result.tool_version and result.tool_version.startswith("ruff ")


def test_mypy_errors_are_reported_on_claimed_files_only(tmp_path: Path) -> None:
    ws = make_workspace(
        tmp_path / "ws",
        {
            "mypy.ini": MYPY_CONFIG,
            "app/__init__.py": "",
            "app/claimed.py": "from app.helper import double\n\nresult: str = double(2)\n",
            "app/helper.py": "def double(x: int) -> int:\n    bad: str = 1\n    return x * 2\n",
        },
    )
    result = run_one(ws, ["app/__init__.py", "app/claimed.py"], "type-check")
    assert result.status == "failed"
    assert located(result) == [("app/claimed.py", 3, "assignment", "major")]
    assert result.findings[0].message.startswith("Incompatible types in assignment")
    assert not (ws / ".mypy_cache").exists()


def test_a_claimed_file_that_does_not_parse_is_critical_for_mypy(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", {"mypy.ini": MYPY_CONFIG, "a.py": "def f(:\n"})
    result = run_one(ws, ["a.py"], "type-check")
    assert result.status == "failed"
    assert located(result)[0] == ("a.py", 1, "syntax", "critical")


def test_a_mypy_fatal_error_is_an_error_never_a_pass(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", {"mypy.ini": MYPY_CONFIG, "x/m.py": "", "y/m.py": ""})
    result = run_one(ws, ["x/m.py", "y/m.py"], "type-check")
    assert result.status == "error"
    assert result.reason == 'mypy stopped: Duplicate module named "m" (also at "x/m.py")'
    assert [f.message for f in result.findings] == [f"could not verify: {result.reason}"]
    assert result.blocking


def mypy_applies(workspace: Path) -> bool:
    [spec] = [t for t in project_manifest("type-check").runner.tools if t.tool == "mypy"]
    return is_detected(spec, workspace)


@pytest.mark.parametrize(
    ("config", "applies"),
    [
        ({"mypy.ini": MYPY_CONFIG}, True),
        ({".mypy.ini": MYPY_CONFIG}, True),
        ({"pyproject.toml": "[tool.mypy]\nstrict = false\n"}, True),
        ({"setup.cfg": "[metadata]\nname = x\n\n[mypy]\n"}, True),
        ({}, False),
        ({"pyproject.toml": RUFF_CONFIG}, False),
        ({"setup.cfg": "[flake8]\nmax-line-length = 100\n"}, False),
        ({"setup.cfg": "[mypy\nnot ini at all"}, False),
    ],
    ids=[
        "mypy.ini",
        ".mypy.ini",
        "pyproject",
        "setup.cfg",
        "nothing",
        "ruff-only",
        "setup.cfg-without-mypy",
        "unreadable-setup.cfg",
    ],
)
def test_mypy_applies_where_the_workspace_configures_it_anywhere_mypy_reads(
    tmp_path: Path, config: dict[str, str], applies: bool
) -> None:
    ws = make_workspace(tmp_path / "ws", {**config, "a.py": "x: int = 'a'\n"})
    assert mypy_applies(ws) is applies


def test_a_workspace_that_does_not_use_mypy_is_not_judged_by_it(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", {"pyproject.toml": RUFF_CONFIG, "a.py": "x: int = 'a'\n"})
    result = run_one(ws, ["a.py"], "type-check")
    assert (result.status, result.findings, result.blocking) == ("skipped", (), False)
    assert result.reason.startswith("no type-check configured in the workspace (looked for ")
