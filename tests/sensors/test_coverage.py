"""coverage: the claimed source's coverage from the unit's targeted tests, against a threshold."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from aidlc_review.sensors import CheckResult
from aidlc_review.sensors.tools import find_tool
from tests.sensors.support import built_once, make_workspace, run_one

CALC = (
    "def add(a, b):\n    return a + b\n\n\n"
    "def sign(x):\n    if x > 0:\n        return 1\n"
    "    if x < 0:\n        return -1\n    return 0\n"
)
TESTS = (
    "import sys\nsys.path.insert(0, 'src')\nfrom pkg.calc import add, sign\n\n\n"
    "def test_add():\n    assert add(1, 2) == 3\n\n\n"
    "def test_sign():\n    assert sign(3) == 1\n"
)
CLAIMED = ["src/pkg/__init__.py", "src/pkg/calc.py", "src/pkg/unused.py", "tests/test_calc.py"]


FILES = {
    "src/pkg/__init__.py": "",
    "src/pkg/calc.py": CALC,
    "src/pkg/unused.py": "def never():\n    return 42\n",
    "tests/test_calc.py": TESTS,
}


@pytest.fixture(autouse=True)
def _workspace_pytest_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """The workspace's pytest loads none of this venv's plugins (xdist): under coverage that
    is ~0.2 s of every run, and the workspace's tests need none."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return make_workspace(tmp_path / "ws", FILES)


@pytest.fixture
def measured(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, CheckResult]:
    """The untouched workspace and its result with the default settings: measured once per
    test run, only read."""

    def build(root: Path) -> CheckResult:
        return run_coverage(make_workspace(root / "ws", FILES), cache_dir=root / "cache")

    root, result = built_once(tmp_path_factory, "coverage-default-settings", build)
    return root / "ws", result


def run_coverage(ws: Path, cache_dir: Path | None = None, **settings: object) -> CheckResult:
    return run_one(
        ws,
        CLAIMED,
        "coverage",
        settings={"coverage_command": "pytest -q tests", **settings},
        cache_dir=cache_dir,
    )


def test_coverage_below_the_threshold_is_a_blocking_finding_and_a_never_imported_module_counts_0(
    measured: tuple[Path, CheckResult],
) -> None:
    ws, result = measured
    assert result.status == "failed"
    assert result.command == "coverage run --branch -m pytest -p no:cacheprovider -q tests"
    assert [(f.severity, f.path, f.message) for f in result.findings] == [
        ("major", "", "coverage of the claimed source 42.86% < 80% (5/10 lines, 1/4 branches)"),
        (
            "minor",
            "src/pkg/calc.py",
            "coverage 50% < 80%: below the threshold (5/8 lines, 1/4 branches); "
            "lines not run: 8-10",
        ),
        (
            "minor",
            "src/pkg/unused.py",
            "coverage 0% < 80%: never executed by the targeted tests (0/2 lines, 0/0 branches); "
            "lines not run: 1-2",
        ),
    ]
    assert result.details["files"]["src/pkg/unused.py"]["percent"] == 0.0
    assert result.details["files"]["src/pkg/calc.py"]["uncovered"] == "8-10"
    assert (
        "tests/test_calc.py" not in result.details["files"]
    )  # claimed tests are not measured source
    assert sorted(p.name for p in ws.iterdir()) == [
        "src",
        "tests",
    ]  # no .coverage, no .pytest_cache


def test_coverage_above_the_threshold_does_not_block(ws: Path) -> None:
    result = run_coverage(ws, coverage_threshold=40)
    assert not result.blocking
    assert [f.path for f in result.findings] == ["src/pkg/unused.py"]
    assert result.details["total"]["percent"] == 42.86


def test_full_coverage_passes(ws: Path) -> None:
    (ws / "src/pkg/unused.py").unlink()
    (ws / "tests/test_calc.py").write_text(
        TESTS + "\n\ndef test_rest():\n    assert sign(-2) == -1\n    assert sign(0) == 0\n"
    )
    result = run_one(
        ws,
        [c for c in CLAIMED if "unused" not in c],
        "coverage",
        settings={"coverage_command": "python -m pytest tests"},
    )
    assert (result.status, result.findings) == ("passed", ())
    assert result.details["total"]["percent"] == 100.0


def test_an_existing_coverage_data_file_is_read_instead_of_running_tests(ws: Path) -> None:
    coverage = find_tool("coverage")
    assert coverage is not None
    subprocess.run(
        [str(coverage), "run", "--branch", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=ws,
        check=True,
        capture_output=True,
    )
    result = run_one(ws, CLAIMED, "coverage", settings={"coverage_data_file": ".coverage"})
    assert result.command == "coverage report (data: .coverage)"
    assert result.details["total"]["percent"] == 42.86


def test_failing_targeted_tests_are_a_blocking_finding(ws: Path) -> None:
    (ws / "tests/test_calc.py").write_text(
        TESTS + "\n\ndef test_broken():\n    assert add(1, 1) == 3\n"
    )
    result = run_coverage(ws, coverage_threshold=0)
    assert [(f.severity, f.rule, f.path, f.line, f.message) for f in result.findings] == [
        (
            "major",
            "coverage/tests-failed",
            "tests/test_calc.py",
            14,
            "the targeted test command exited 1: tests/test_calc.py::test_broken failed: "
            "assert 2 == 3 +  where 2 = add(1, 1)",
        )
    ]
    assert sorted(p.name for p in ws.iterdir()) == ["src", "tests"]  # the report went elsewhere


def test_failing_tests_of_a_command_that_is_not_pytest_are_a_finding_without_names(
    ws: Path,
) -> None:
    (ws / "check.py").write_text(
        "import sys\nsys.path.insert(0, 'src')\nfrom pkg.calc import add\n"
        "assert add(1, 1) == 3, 'add is off by one'\n"
    )
    result = run_coverage(ws, coverage_threshold=0, coverage_command="python check.py")
    [failed] = result.findings
    assert (failed.path, failed.rule) == ("", "coverage/tests-failed")
    assert failed.message == (
        "the targeted test command exited 1: the failing tests are unknown (not a pytest "
        "command); its last line: AssertionError: add is off by one"
    )


def test_changed_lines_coverage_against_a_base_revision(ws: Path) -> None:
    git = ["git", "-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], cwd=ws, check=True)
    subprocess.run([*git, "add", "-A"], cwd=ws, check=True)
    subprocess.run([*git, "commit", "-qm", "base"], cwd=ws, check=True)
    with open(ws / "src/pkg/calc.py", "a") as handle:
        handle.write("\n\ndef mul(a, b):\n    return a * b\n")
    result = run_coverage(ws, coverage_threshold=40, base_revision="HEAD")
    assert result.details["changed_lines"] == {
        "base": "HEAD",
        "statements": 2,
        "covered_lines": 1,
        "percent": 50.0,
        "uncovered": {"src/pkg/calc.py": "14"},
    }
    assert not any(f.rule == "coverage/changed-below-threshold" for f in result.findings)
    strict = run_coverage(ws, coverage_threshold=60, base_revision="HEAD")
    assert (
        "major",
        "coverage of the lines changed since HEAD 50% < 60% (1/2 lines); "
        "changed lines not run: src/pkg/calc.py 14",
    ) in [(f.severity, f.message) for f in strict.findings]


def test_an_unknown_base_revision_is_an_error(ws: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
    result = run_coverage(ws, base_revision="no-such-rev")
    assert result.status == "error"
    assert result.reason.startswith("git ls-tree against the base revision failed: ")


def test_no_test_command_and_no_data_file_is_skipped(ws: Path) -> None:
    result = run_one(ws, CLAIMED, "coverage")
    assert (result.status, result.findings) == ("skipped", ())
    assert result.reason == (
        "no targeted test command (coverage_command) or coverage data file "
        "(coverage_data_file) configured"
    )


def test_a_hanging_test_command_is_an_error(ws: Path) -> None:
    (ws / "tests/test_calc.py").write_text(
        "import time\n\n\ndef test_hang():\n    time.sleep(60)\n"
    )
    result = run_coverage(ws, timeout_seconds=1)
    assert (result.status, result.reason) == ("error", "coverage timed out after 1s")


def test_relative_files_setting_gives_the_same_numbers_from_any_working_directory(
    ws: Path, measured: tuple[Path, CheckResult], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, plain = measured  # the same workspace, without the setting
    (ws / "pyproject.toml").write_text("[tool.coverage.run]\nrelative_files = true\n")
    monkeypatch.chdir(ws.parent)  # not the workspace: the data file holds relative names
    relative = run_coverage(ws)
    assert relative.details["files"] == plain.details["files"]
    assert [f.message for f in relative.findings] == [f.message for f in plain.findings]
