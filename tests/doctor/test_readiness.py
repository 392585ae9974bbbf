"""``doctor`` says whether a workspace is ready to be reviewed: its units, whether the test
command's interpreter imports pytest and the package, which sensors run or are skipped, why.

The project environments are real venvs (``python -m venv``; pytest from pip's cache or PyPI).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from tests.review.workspace import write_manifest
from tests.sensors.support import built_once

PYPROJECT = """\
[project]
name = "orders"
version = "0.1.0"

[tool.mypy]
strict = true

[tool.aidlc-review]
test-command = "python -m pytest -q tests"
"""


def _venv(factory: pytest.TempPathFactory, name: str, packages: list[str]) -> Path:
    def build(root: Path) -> None:
        where = root / "venv"
        base = str(Path(sys._base_executable).resolve())
        subprocess.run([base, "-m", "venv", "--without-pip", str(where)], check=True)
        if packages:
            pip = [sys.executable, "-m", "pip", "--python", str(where / "bin/python")]
            subprocess.run([*pip, "install", "-q", *packages], check=True)

    root, _ = built_once(factory, name, build)
    return root / "venv"


def _workspace(tmp_path: Path, venv: Path, pyproject: str = PYPROJECT) -> Path:
    ws = tmp_path / "ws"
    (ws / "orders").mkdir(parents=True)
    (ws / "orders/__init__.py").write_text("")
    (ws / "pyproject.toml").write_text(pyproject)
    write_manifest(ws, ["orders/__init__.py"], "u1-orders")
    write_manifest(ws, ["orders/__init__.py"], "u2-billing")
    (ws / ".venv").symlink_to(venv, target_is_directory=True)
    return ws


def _readiness(ws: Path, capsys: pytest.CaptureFixture[str]) -> dict:
    assert main(["doctor", "--workspace", str(ws), "--json"]) == 0
    return json.loads(capsys.readouterr().out)["workspace"]


def test_an_interpreter_without_pytest_is_named_with_the_fix(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = _workspace(tmp_path, _venv(tmp_path_factory, "venv-no-pytest", []))
    facts = _readiness(ws, capsys)
    python = ws / ".venv/bin/python"
    assert (facts["units"], facts["test_command"]) == (
        ["u1-orders", "u2-billing"],
        "python -m pytest -q tests",
    )
    assert facts["interpreter"] == {
        "path": str(python),
        "how": "the workspace's .venv",
        "imports": {"pytest": None, "coverage": None, "orders": ""},
        "package": "orders",
    }
    assert facts["sensors"]["coverage"] == {
        "runs": False,
        "why": f"the test command's interpreter {python} cannot import pytest: "
        "install pytest in the project environment",
    }
    assert facts["sensors"]["type-check"]["runs"] is True
    assert facts["sensors"]["formatter"] == {
        "runs": False,
        "why": "the workspace configures none "
        "(.ruff.toml, pyproject.toml:tool.black, pyproject.toml:tool.ruff, ruff.toml)",
    }


def test_text_output_says_what_runs_and_what_is_skipped(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    venv = _venv(tmp_path_factory, "venv-pytest-no-coverage", ["pytest"])
    ws = _workspace(tmp_path, venv)
    assert main(["doctor", "--workspace", str(ws)]) == 0
    lines = capsys.readouterr().out.splitlines()
    start = lines.index("units: u1-orders, u2-billing")
    version = subprocess.run(
        [venv / "bin/python", "-c", "import pytest; print(pytest.__version__)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert lines[start : start + 7] == [
        "units: u1-orders, u2-billing",
        "test command: python -m pytest -q tests",
        f"  interpreter: {ws / '.venv/bin/python'} (the workspace's .venv)",
        f"  imports pytest: yes {version}",
        "  imports coverage: no (the review's own coverage.py is used)",
        "  imports orders: yes",
        f"sensor coverage: runs (the test command on {ws / '.venv/bin/python'})",
    ]
    assert any(line.startswith("sensor secret-scan: runs (detect-secrets at ") for line in lines)


def test_no_test_command_skips_coverage_and_says_so(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    plain = PYPROJECT.split("[tool.aidlc-review]")[0]
    ws = _workspace(tmp_path, _venv(tmp_path_factory, "venv-no-pytest", []), plain)
    facts = _readiness(ws, capsys)
    assert (facts["test_command"], facts["interpreter"]) == (None, None)
    assert facts["sensors"]["coverage"] == {
        "runs": False,
        "why": "no test-command in [tool.aidlc-review]",
    }


def test_bad_settings_are_reported_not_raised(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = PYPROJECT.replace("test-command", "test-comand")
    ws = _workspace(tmp_path, _venv(tmp_path_factory, "venv-no-pytest", []), bad)
    facts = _readiness(ws, capsys)
    assert list(facts) == ["problem"]
    assert facts["problem"] == (
        f"{ws / 'pyproject.toml'}:9: [tool.aidlc-review].test-comand: unknown key "
        "(did you mean 'test-command'?)"
    )


def test_a_typescript_unit_is_not_told_that_ruff_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "src/add.ts").write_text("export const one = 1;\n")
    (ws / "package.json").write_text("{}\n")
    (ws / "pyproject.toml").write_text("[tool.ruff]\nline-length = 100\n")
    write_manifest(ws, ["src/add.ts"], "u1-web")

    sensors = _readiness(ws, capsys)["sensors"]

    # the security lens takes TypeScript where the project has eslint's TypeScript parser
    assert sensors["security"]["runs"] is False
    assert sensors["security"]["why"].startswith(
        "the workspace configures none (node_modules/@typescript-eslint/parser/package.json"
    )
    assert sensors["linter"]["runs"] is False  # eslint would take it, and none is configured
    assert sensors["linter"]["why"].startswith("the workspace configures none (.eslintrc")
