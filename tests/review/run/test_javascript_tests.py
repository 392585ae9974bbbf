"""A plain JavaScript unit tested with jest is reviewed with the project's own runner.

The project is a real npm project (jest from the npm registry at a pinned version, installed
once per test run) with its settings in ``.aidlc-review.toml``. A failing jest test is a
finding at its file and line, naming it, and the unit is not ready; a new branch no test
runs is a coverage finding naming its lines; the branch tested, the unit is ready.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from aidlc_review.cli.main import main
from tests.review.workspace import UNIT, findings_doc, git, write, write_manifest
from tests.sensors.node_project import COMMONJS, node_modules

BASE = "function clamp(x, lo, hi) {\n  if (x < lo) {\n    return lo;\n  }\n  return x;\n}\n"
CHANGED = BASE.replace("  return x;\n", "  if (x > hi) {\n    return hi;\n  }\n  return x;\n")
EXPORT = "module.exports = { clamp };\n"
TESTS = (
    'const { clamp } = require("../src/clamp.js");\n\n'
    'test("clamps low", () => {\n  expect(clamp(-1, 0, 5)).toBe(0);\n});\n\n'
    'test("keeps inside", () => {\n  expect(clamp(3, 0, 5)).toBe(3);\n});\n'
)
HIGH = '\ntest("clamps high", () => {\n  expect(clamp(9, 0, 5)).toBe(5);\n});\n'
FILES = {
    "package.json": COMMONJS,
    ".aidlc-review.toml": 'test-command = "npx jest tests"\nbase-revision = "main"\n',
    ".gitignore": "node_modules\n",
    "src/clamp.js": BASE + EXPORT,
    "tests/clamp.test.js": TESTS,
}
CLAIMS = ["src/clamp.js", "tests/clamp.test.js"]


@pytest.fixture
def project(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project at its base (committed); the unit's change adds an upper bound."""
    installed = node_modules(tmp_path_factory)
    root = tmp_path / "calc"
    for name, text in FILES.items():
        write(root / name, text)
    os.symlink(installed, root / "node_modules")
    write_manifest(root, CLAIMS)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "base")
    write(root / "src/clamp.js", CHANGED + EXPORT)
    return root


def review(root: Path) -> int:
    return main(["review", "run", "--workspace", str(root), "--unit", UNIT])


def coverage_findings(root: Path) -> list[dict[str, Any]]:
    return [f for f in findings_doc(root)["passes"][-1]["findings"] if f["check"] == "coverage"]


def line_of(finding: dict[str, Any]) -> int | None:
    return finding["locations"][0]["line"] if finding["locations"] else None


def test_a_failing_jest_test_is_a_finding_at_its_failing_assertion_and_the_unit_is_not_ready(
    project: Path,
) -> None:
    """At the line of the ``expect`` that failed (12), not of its ``test(`` (11)."""
    write(project / "tests/clamp.test.js", TESTS + HIGH.replace("toBe(5)", "toBe(4)"))

    assert review(project) == 1

    [failed] = coverage_findings(project)
    assert (failed["path"], line_of(failed), failed["rule"]) == (
        "tests/clamp.test.js",
        12,
        "tests-failed",
    )
    assert failed["finding"].startswith("test clamps high failed: ")
    assert "Expected: 4" in failed["finding"] and "Received: 5" in failed["finding"]
    assert failed["recommendation"].startswith("Make the failing tests pass")  # not "add tests"


def test_a_new_branch_no_jest_test_runs_is_reported_with_its_lines(project: Path) -> None:
    assert review(project) == 1

    found = coverage_findings(project)
    changed = [f for f in found if f["rule"].endswith("changed-below-threshold")]
    assert [(f["path"], line_of(f)) for f in changed] == [("src/clamp.js", 6)]
    assert "changed lines not run: src/clamp.js 6" in changed[0]["finding"]


def test_the_new_branch_tested_the_javascript_unit_is_ready(project: Path) -> None:
    write(project / "tests/clamp.test.js", TESTS + HIGH)

    assert review(project) == 0
    assert coverage_findings(project) == []
    checks = {c["name"]: c for c in findings_doc(project)["passes"][-1]["checks"]}
    assert checks["coverage"]["status"] == "passed"
