"""A JavaScript unit's targeted tests run by the runner the command names (vitest, jest,
node --test), known by its descriptor: failing tests are findings at their file and line,
naming the test; the coverage report the runner writes into the scratch folder is judged as
coverage.py's numbers are (threshold, changed lines naming those not run); no coverage
provider installed is a named skip; a broken report is an error, never a pass."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from aidlc_review.review.inputs.workspace_settings import load_settings
from aidlc_review.sensors import CheckResult
from tests.sensors.node_project import (
    COMMONJS,
    ESM,
    PROVIDER,
    js_workspace,
    node_modules,
    without_provider,
)
from tests.sensors.support import fake_tool, located, run_one
from tests.sensors.test_coverage_formats import (
    CART,
    CLAMP_CJS,
    CLAMP_ESM,
    JACOCO,
    JEST_TEST,
    MAIN,
    NODE_TEST,
    VAT,
    VITEST_TEST,
)

CLAIMED = ["src/clamp.js", "tests/clamp.test.js"]
# the base has no upper bound; the change adds one that no test reaches
BASE_ESM = CLAMP_ESM.replace("  if (x > hi) {\n    return hi;\n  }\n", "")
BASE_CJS = CLAMP_CJS.replace("  if (x > hi) {\n    return hi;\n  }\n", "")
HIGH = {
    "vitest": '\ntest("clamps high", () => {\n  expect(clamp(9, 0, 5)).toBe(5);\n});\n',
    "jest": '\ntest("clamps high", () => {\n  expect(clamp(9, 0, 5)).toBe(5);\n});\n',
    "node": '\ntest("clamps high", () => {\n  assert.strictEqual(clamp(9, 0, 5), 5);\n});\n',
}
RUNNERS = {
    "vitest": (ESM, BASE_ESM, CLAMP_ESM, VITEST_TEST, "npx vitest run tests"),
    "jest": (COMMONJS, BASE_CJS, CLAMP_CJS, JEST_TEST, "npx jest tests"),
    "node": (COMMONJS, BASE_CJS, CLAMP_CJS, NODE_TEST, "node --test tests/"),
}


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    return node_modules(tmp_path_factory)


def changed_unit(tmp_path: Path, installed: Path, runner: str) -> Path:
    """The base (every line tested), then the change: a new branch no test runs."""
    package, base, changed, tests, _ = RUNNERS[runner]
    files = {"package.json": package, "src/clamp.js": base, "tests/clamp.test.js": tests}
    ws = js_workspace(tmp_path / "ws", files, installed)
    (ws / "src/clamp.js").write_text(changed)
    return ws


def run_tests(ws: Path, runner: str, **settings: object) -> CheckResult:
    command = RUNNERS[runner][4]
    chosen = {"coverage_command": command, "base_revision": "HEAD", **settings}
    return run_one(ws, CLAIMED, "coverage", settings=chosen)


@pytest.mark.parametrize("runner", ["vitest", "jest", "node"])
def test_a_new_branch_no_test_runs_is_reported_with_its_lines(
    tmp_path: Path, installed: Path, runner: str
) -> None:
    ws = changed_unit(tmp_path, installed, runner)

    result = run_tests(ws, runner)

    assert result.status == "failed", result.reason
    changed = [f for f in result.findings if f.rule == "coverage/changed-below-threshold"]
    assert [(f.path, f.line, f.severity) for f in changed] == [("src/clamp.js", 6, "major")]
    assert "changed lines not run: src/clamp.js 6" in changed[0].message
    assert result.details["changed_lines"]["uncovered"]["src/clamp.js"].startswith("6")
    assert result.tool == runner
    assert not list(ws.glob("coverage*")) and not (ws / "lcov.info").exists()  # scratch only


@pytest.mark.parametrize("runner", ["vitest", "jest", "node"])
def test_the_branch_tested_has_no_coverage_finding(
    tmp_path: Path, installed: Path, runner: str
) -> None:
    ws = changed_unit(tmp_path, installed, runner)
    (ws / "tests/clamp.test.js").write_text(RUNNERS[runner][3] + HIGH[runner])

    result = run_tests(ws, runner)

    assert (result.status, located(result)) == ("passed", [])
    assert result.details["files"]["src/clamp.js"]["percent"] >= 80
    assert result.details["changed_lines"]["uncovered"] == {}


@pytest.mark.parametrize(
    ("runner", "line", "named"),
    [
        ("jest", 12, "clamps high"),  # jest: the failing assertion (its first stack frame there)
        ("vitest", 13, "tests/clamp.test.js > clamps high"),  # vitest's JUnit: the assertion
        ("node", 14, "clamps high"),  # node's JUnit names no file: the first stack frame
    ],
)
def test_a_failing_test_is_a_finding_at_its_file_and_line_naming_it(
    tmp_path: Path, installed: Path, runner: str, line: int, named: str
) -> None:
    ws = changed_unit(tmp_path, installed, runner)
    wrong = HIGH[runner].replace("toBe(5)", "toBe(4)").replace("9, 0, 5), 5", "9, 0, 5), 4")
    (ws / "tests/clamp.test.js").write_text(RUNNERS[runner][3] + wrong)

    result = run_tests(ws, runner)

    assert located(result) == [("tests/clamp.test.js", line, "tests-failed", "major")]
    assert named in result.findings[0].message
    assert result.details["coverage"] == "not judged: the targeted tests failed"


def test_vitest_without_a_coverage_provider_is_a_named_skip_never_a_pass(
    tmp_path: Path, installed: Path
) -> None:
    ws = changed_unit(tmp_path, installed, "vitest")
    without_provider(ws, installed)

    result = run_tests(ws, "vitest")

    assert result.status == "skipped"
    assert result.reason == (
        "coverage not measured: vitest has no coverage provider installed in the workspace "
        f"(node_modules/{PROVIDER} or node_modules/@vitest/coverage-istanbul); the targeted "
        "tests ran, the review never installs anything"
    )


def test_a_claimed_source_the_report_leaves_out_is_said(tmp_path: Path, installed: Path) -> None:
    ws = changed_unit(tmp_path, installed, "node")
    (ws / "src/unused.js").write_text("module.exports = 1;\n")

    result = run_one(ws, [*CLAIMED, "src/unused.js"], "coverage",
                     settings={"coverage_command": "node --test tests/"})  # fmt: skip

    unused = [f for f in result.findings if f.path == "src/unused.js"]
    assert [(f.severity, f.rule) for f in unused] == [("minor", "coverage/file-below-threshold")]
    assert unused[0].message.startswith("not in the coverage report of `node --test tests/`")
    assert result.details["not_in_report"] == ["src/unused.js"]


def test_a_truncated_coverage_report_is_an_error_never_a_pass(tmp_path: Path) -> None:
    """A runner that passes but leaves its lcov report cut off (a crash while writing)."""
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "src/clamp.js").write_text(CLAMP_CJS)
    fake_tool(
        ws / "node_modules/.bin",
        "jest",
        "import sys\nfor arg in sys.argv:\n"
        "    if arg.startswith('--coverageDirectory='):\n"
        "        cut = 'SF:src/clamp.js\\nDA:1,1\\n'\n"
        "        open(arg.split('=', 1)[1] + '/lcov.info', 'w').write(cut)\n",
    )

    result = run_one(ws, ["src/clamp.js"], "coverage", settings={"coverage_command": "npx jest"})

    assert result.status == "error"
    assert result.reason == "lcov.info: truncated: the last record has no end_of_record"
    assert [f.severity for f in result.findings] == ["major"]


# A Java project's test runner, declared in the project's settings with the JaCoCo report its
# build writes. The runner here is a stand-in script (no JDK on the machine): it writes a
# passing JUnit report and the JaCoCo report of tests/fixtures/coverage/jacoco.xml.
JAVA_TOOLS = """\
[[tools]]
check = "coverage"
argv = ["java-tests"]
files = "**/*.java"
format = "junit-xml"
report_args = ["--junit={report}"]
coverage_args = ["--jacoco={coverage}/jacoco.xml"]
coverage_format = "jacoco-xml"
coverage_report = "jacoco.xml"
"""
JAVA_RUNNER = f"""\
import shutil, sys
for arg in sys.argv[1:]:
    if arg.startswith("--junit="):
        open(arg.split("=", 1)[1], "w").write(
            '<testsuite name="CartTest" tests="1" failures="0">'
            '<testcase classname="com.example.shop.CartTest" name="total"/></testsuite>'
        )
    if arg.startswith("--jacoco="):
        shutil.copyfile({str(JACOCO)!r}, arg.split("=", 1)[1])
"""


def test_a_declared_runner_s_jacoco_report_is_judged_as_every_coverage_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = tmp_path / "ws"
    for name, text in {MAIN + "Cart.java": CART, MAIN + "tax/Vat.java": VAT}.items():
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        (ws / name).write_text(text)
    (ws / ".aidlc-review.toml").write_text('test-command = "java-tests"\n\n' + JAVA_TOOLS)
    fake_tool(tmp_path / "bin", "java-tests", JAVA_RUNNER)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:{os.environ['PATH']}")
    tools = [tool.model_dump() for tool in load_settings(ws).tools]
    claimed = [MAIN + "Cart.java", MAIN + "tax/Vat.java"]

    result = run_one(
        ws, claimed, "coverage", settings={"coverage_command": "java-tests", "tools": tools}
    )

    assert result.status == "failed", result.reason
    assert result.details["format"] == "jacoco-xml"
    assert result.details["total"]["percent"] == round(
        100 * (3 + 1) / (5 + 2), 2
    )  # lines + branches
    assert sorted(located(result)) == [
        ("", None, "coverage/total-below-threshold", "major"),
        (MAIN + "Cart.java", None, "coverage/file-below-threshold", "minor"),
        (MAIN + "tax/Vat.java", None, "coverage/file-below-threshold", "minor"),
    ]
