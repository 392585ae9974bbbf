"""coverage: a file's numbers are reused while its content and executed lines/arcs are unchanged.

The targeted tests always run again; only coverage.py's per-file analysis is cached.
Every cached result is compared against an uncached run of the same workspace.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from aidlc_review.sensors import CheckResult
from aidlc_review.sensors.tools import find_tool
from tests.sensors.support import built_once, make_workspace, run_one
from tests.shared_builds import state_home

CALC = (
    "def add(a, b):\n    return a + b\n\n\n"
    "def sign(x):\n    if x > 0:\n        return 1\n"
    "    if x < 0:\n        return -1\n    return 0\n"
)
FLAG = "def pick(x):\n    y = 0\n    if x:\n        y = 1\n    return y\n"
TESTS = (
    "import sys\nsys.path.insert(0, 'src')\nfrom pkg.calc import add, sign\n"
    "from pkg.flag import pick\n\n\n"
    "def test_it():\n    assert add(1, 2) == 3\n    assert sign(3) == 1\n    assert pick(1) == 1\n"
)
SOURCES = ["src/pkg/__init__.py", "src/pkg/calc.py", "src/pkg/flag.py", "src/pkg/unused.py"]
CLAIMED = [*SOURCES, "tests/test_pkg.py"]


FILES = {
    "src/pkg/__init__.py": "",
    "src/pkg/calc.py": CALC,
    "src/pkg/flag.py": FLAG,
    "src/pkg/unused.py": "def never():\n    return 42\n",
    "tests/test_pkg.py": TESTS,
}


@dataclass(frozen=True)
class Measured:
    """A copy of the untouched workspace and of the cache its first measurement filled."""

    ws: Path
    cache: Path
    first: CheckResult
    reused: int


@pytest.fixture(autouse=True)
def _workspace_pytest_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """The workspace's pytest loads none of this venv's plugins (xdist): under coverage that
    is ~0.2 s of every run, and the workspace's tests need none."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return make_workspace(tmp_path / "ws", FILES)


@pytest.fixture
def measured(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> Measured:
    """The untouched workspace measured into an empty cache once per test run; each test gets
    its own copies of the workspace and of that really computed cache."""

    def build(root: Path) -> tuple[CheckResult, int]:
        return measure(make_workspace(root / "ws", FILES), root / "cache")

    root, (first, reused) = built_once(tmp_path_factory, "coverage-cache-first", build)
    ws = shutil.copytree(root / "ws", tmp_path / "ws")
    cache = shutil.copytree(root / "cache", tmp_path / "cache")
    # the cache's entries are sealed with the build's key: the test takes that key too
    shutil.copytree(state_home(root), os.environ["XDG_STATE_HOME"], dirs_exist_ok=True)
    return Measured(ws, cache, first, reused)


def measure(ws: Path, cache_dir: Path, **settings: object) -> tuple[CheckResult, int]:
    """The coverage result, and how many source files took their numbers from the cache."""
    said: list[str] = []
    result = run_one(
        ws,
        CLAIMED,
        "coverage",
        settings={"coverage_command": "pytest -q tests", **settings},
        cache_dir=cache_dir,
        progress=said.append,
    )
    [done] = [m for m in said if m.startswith("coverage: ") and "from the cache" in m]
    found = re.search(r"(\d+) from the cache", done)
    assert found is not None
    return result, int(found.group(1))


def uncached(ws: Path, tmp_path: Path) -> CheckResult:
    result, reused = measure(ws, tmp_path / "never-used", cache=False)
    assert reused == 0
    return result


def same(a: CheckResult, b: CheckResult) -> bool:
    return (a.status, a.findings, a.details) == (b.status, b.findings, b.details)


def test_after_a_one_file_change_only_that_file_is_analysed_and_the_result_is_unchanged(
    measured: Measured, tmp_path: Path
) -> None:
    ws, cache, first = measured.ws, measured.cache, measured.first
    assert measured.reused == 0
    assert measure(ws, cache)[1] == 4
    with open(ws / "src/pkg/calc.py", "a") as handle:
        handle.write("\n\ndef mul(a, b):\n    return a * b\n")
    again, reused = measure(ws, cache)
    assert reused == 3  # __init__, flag and unused; calc.py changed
    assert same(again, uncached(ws, tmp_path))
    assert again.details["files"]["src/pkg/calc.py"]["statements"] == 10
    assert first.details["files"]["src/pkg/calc.py"]["statements"] == 8
    assert [f.message for f in again.findings] == [
        "coverage of the claimed source 56.52% < 80% (11/17 lines, 2/6 branches)",
        "coverage 50% < 80%: below the threshold (6/10 lines, 1/4 branches); "
        "lines not run: 8-10, 14",
        "coverage 0% < 80%: never executed by the targeted tests (0/2 lines, 0/0 branches); "
        "lines not run: 1-2",
    ]


@pytest.mark.parametrize(
    "call, path, before, after",
    [
        # new executed lines in calc.py (and new arcs)
        ("sign(-2)", "src/pkg/calc.py", (5, 8, 1, 4), (7, 8, 3, 4)),
        # the same executed lines in flag.py, only a new arc: the `if x:` false branch
        ("pick(0)", "src/pkg/flag.py", (5, 5, 1, 2), (5, 5, 2, 2)),
    ],
)
def test_a_file_whose_executed_lines_or_arcs_changed_is_analysed_again(
    measured: Measured,
    tmp_path: Path,
    call: str,
    path: str,
    before: tuple[int, ...],
    after: tuple[int, ...],
) -> None:
    ws, cache, first = measured.ws, measured.cache, measured.first
    (ws / "tests/test_pkg.py").write_text(TESTS + f"    {call}\n")  # no claimed source changed
    again, reused = measure(ws, cache)
    assert reused == 3
    assert same(again, uncached(ws, tmp_path))
    keys = ("covered_lines", "statements", "covered_branches", "branches")
    assert tuple(first.details["files"][path][k] for k in keys) == before
    assert tuple(again.details["files"][path][k] for k in keys) == after


def test_a_change_in_the_coverage_exclusions_analyses_every_file_again(
    measured: Measured, tmp_path: Path
) -> None:
    ws, cache, first = measured.ws, measured.cache, measured.first
    (ws / "pyproject.toml").write_text('[tool.coverage.report]\nexclude_also = ["def never"]\n')
    again, reused = measure(ws, cache)
    assert reused == 0
    assert same(again, uncached(ws, tmp_path))
    assert first.details["files"]["src/pkg/unused.py"]["statements"] == 2
    assert again.details["files"]["src/pkg/unused.py"]["statements"] == 0


def test_an_unparseable_file_stays_left_out_when_its_numbers_come_from_the_cache(
    ws: Path, tmp_path: Path
) -> None:
    (ws / "src/pkg/broken.py").write_text("def broken(:\n")
    cache = tmp_path / "cache"
    claimed = [*CLAIMED, "src/pkg/broken.py"]
    settings = {"coverage_command": "pytest -q tests"}
    first = run_one(ws, claimed, "coverage", settings=settings, cache_dir=cache)
    said: list[str] = []
    again = run_one(
        ws, claimed, "coverage", settings=settings, cache_dir=cache, progress=said.append
    )
    assert "src/pkg/broken.py" not in first.details["files"]
    assert same(again, first)
    assert any("5 from the cache" in m for m in said)


def test_the_numbers_are_coverage_pys_public_analysis_numbers(ws: Path, tmp_path: Path) -> None:
    """The sensor reads them through coverage.py's private ``_analyze`` (one parse per file):
    this pins them to the public ``analysis2`` + ``branch_stats`` on a coverage.py upgrade."""
    import coverage

    tool = find_tool("coverage")
    assert tool is not None
    (ws / "tests/test_pkg.py").write_text(TESTS + "    sign(-2)\n")
    subprocess.run(
        [str(tool), "run", "--branch", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=ws,
        check=True,
        capture_output=True,
    )
    result, _ = measure(ws, tmp_path / "cache", coverage_data_file=".coverage")
    cov = coverage.Coverage(data_file=str(ws / ".coverage"), config_file=False)
    cov.load()
    expected = {}
    for path in SOURCES:
        _, statements, _, missing, _ = cov.analysis2(str(ws / path))
        stats = cov.branch_stats(str(ws / path)).values()
        expected[path] = {
            "statements": len(statements),
            "covered_lines": len(statements) - len(missing),
            "branches": sum(exits for exits, _ in stats),
            "covered_branches": sum(taken for _, taken in stats),
        }
    got = {
        path: {k: v for k, v in numbers.items() if k not in ("percent", "uncovered")}
        for path, numbers in result.details["files"].items()
    }
    assert got == expected
    assert expected["src/pkg/calc.py"] == {
        "statements": 8,
        "covered_lines": 7,
        "branches": 4,
        "covered_branches": 3,
    }
