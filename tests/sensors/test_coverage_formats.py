"""Coverage report formats read into the coverage.py ``Report``: lcov, istanbul JSON,
Cobertura XML and Go coverprofiles, with workspace-relative paths; a bad or truncated report
is an error naming where, never a pass. Real reports come from vitest, jest and node's own
test runner run on a small project; the edge cases are small hand-written reports."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from aidlc_review.sensors.context import SensorError
from aidlc_review.sensors.coverage_formats import (
    cobertura_xml,
    go_coverprofile,
    istanbul_json,
    jacoco_xml,
    lcov,
    workspace_path,
)
from tests.sensors.node_project import COMMONJS, ESM, js_workspace, node_modules

# clamp(9, 0, 5) is never called: the "return hi" branch (line 6) is the only line not run
CLAMP_ESM = (
    "export function clamp(x, lo, hi) {\n"
    "  if (x < lo) {\n"
    "    return lo;\n"
    "  }\n"
    "  if (x > hi) {\n"
    "    return hi;\n"
    "  }\n"
    "  return x;\n"
    "}\n"
)
CLAMP_CJS = CLAMP_ESM.replace("export function", "function") + "module.exports = { clamp };\n"
VITEST_TEST = (
    'import { expect, test } from "vitest";\nimport { clamp } from "../src/clamp.js";\n\n'
    'test("clamps low", () => {\n  expect(clamp(-1, 0, 5)).toBe(0);\n});\n\n'
    'test("keeps inside", () => {\n  expect(clamp(3, 0, 5)).toBe(3);\n});\n'
)
JEST_TEST = (
    'const { clamp } = require("../src/clamp.js");\n\n'
    'test("clamps low", () => {\n  expect(clamp(-1, 0, 5)).toBe(0);\n});\n\n'
    'test("keeps inside", () => {\n  expect(clamp(3, 0, 5)).toBe(3);\n});\n'
)
NODE_TEST = (
    'const test = require("node:test");\nconst assert = require("node:assert");\n'
    'const { clamp } = require("../src/clamp.js");\n\n'
    'test("clamps low", () => {\n  assert.strictEqual(clamp(-1, 0, 5), 0);\n});\n\n'
    'test("keeps inside", () => {\n  assert.strictEqual(clamp(3, 0, 5), 3);\n});\n'
)


def written(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / "reports" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def lines_of(entry: dict[str, Any]) -> tuple[list[int], list[int]]:
    return entry["executed"], entry["missing"]


# --- lcov -------------------------------------------------------------------------------


def test_lcov_counts_lines_and_branches_and_names_files_relative_to_the_workspace(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "src/a.js").write_text("x\n")
    report = written(
        tmp_path,
        "lcov.info",
        f"TN:\nSF:{ws}/src/a.js\nFN:1,f\nDA:1,3\nDA:2,0\nDA:4,1\n"
        "BRDA:1,0,0,2\nBRDA:1,0,1,-\nBRDA:4,1,0,0\nLF:3\nLH:2\nend_of_record\n"
        "SF:/elsewhere/lib.js\nDA:1,1\nend_of_record\n",
    )

    found = lcov(report, ws)

    assert list(found) == ["src/a.js"]  # the file outside the workspace is left out
    assert found["src/a.js"] == {
        "statements": 3,
        "covered_lines": 2,
        "branches": 3,
        "covered_branches": 1,
        "percent": 50.0,
        "executed": [1, 4],
        "missing": [2],
    }


def test_lcov_records_of_the_same_file_are_merged_a_line_run_by_either_counts(
    tmp_path: Path,
) -> None:
    report = written(
        tmp_path,
        "lcov.info",
        "SF:src/a.js\nDA:1,0\nDA:2,1\nend_of_record\nSF:./src/a.js\nDA:1,4\nDA:3,0\nend_of_record\n",
    )

    assert lines_of(lcov(report, tmp_path)["src/a.js"]) == ([1, 2], [3])


def test_a_truncated_lcov_report_is_an_error_not_a_pass(tmp_path: Path) -> None:
    report = written(tmp_path, "lcov.info", "SF:src/a.js\nDA:1,1\nDA:2,0\n")

    with pytest.raises(SensorError) as raised:
        lcov(report, tmp_path)

    assert str(raised.value) == "lcov.info: truncated: the last record has no end_of_record"


def test_a_malformed_lcov_line_is_an_error_naming_its_line(tmp_path: Path) -> None:
    report = written(tmp_path, "lcov.info", "SF:src/a.js\nDA:1,1\nDA:two,0\nend_of_record\n")

    with pytest.raises(SensorError) as raised:
        lcov(report, tmp_path)

    assert str(raised.value) == "lcov.info:3: expected a number, got 'two'"


def test_an_empty_coverage_report_is_an_error(tmp_path: Path) -> None:
    report = written(tmp_path, "lcov.info", "\n")

    with pytest.raises(SensorError) as raised:
        lcov(report, tmp_path)

    assert str(raised.value) == "unreadable coverage report lcov.info: it is empty"


def test_text_that_is_not_lcov_is_an_error(tmp_path: Path) -> None:
    report = written(tmp_path, "lcov.info", "<html>coverage</html>\n")

    with pytest.raises(SensorError) as raised:
        lcov(report, tmp_path)

    assert str(raised.value) == "lcov.info: not an lcov tracefile (no SF: record)"


# --- istanbul JSON ----------------------------------------------------------------------


def _istanbul(path: str) -> dict[str, Any]:
    return {
        path: {
            "path": path,
            "statementMap": {
                "0": {"start": {"line": 1, "column": 0}, "end": {"line": 1, "column": 9}},
                "1": {"start": {"line": 2, "column": 2}, "end": {"line": 2, "column": 9}},
                "2": {"start": {"line": 2, "column": 10}, "end": {"line": 2, "column": 19}},
                "3": {"start": {"line": 3, "column": 2}, "end": {"line": 3, "column": 9}},
            },
            "s": {"0": 1, "1": 0, "2": 2, "3": 0},
            "branchMap": {"0": {"line": 2, "type": "if", "locations": [{}, {}]}},
            "b": {"0": [2, 0]},
        }
    }


def test_istanbul_json_a_line_runs_when_any_statement_starting_on_it_ran(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "lib").mkdir(parents=True)
    (ws / "lib/b.js").write_text("x\n")
    report = written(tmp_path, "coverage-final.json", json.dumps(_istanbul(f"{ws}/lib/b.js")))

    entry = istanbul_json(report, ws)["lib/b.js"]

    assert lines_of(entry) == ([1, 2], [3])
    assert (entry["branches"], entry["covered_branches"]) == (2, 1)


def test_an_istanbul_file_without_counts_is_an_error_naming_its_json_path(tmp_path: Path) -> None:
    data = _istanbul("/ws/lib/b.js")
    del data["/ws/lib/b.js"]["s"]
    report = written(tmp_path, "coverage-final.json", json.dumps(data))

    with pytest.raises(SensorError) as raised:
        istanbul_json(report, tmp_path)

    assert str(raised.value) == (
        'coverage-final.json: $["/ws/lib/b.js"].s: missing (expected an object)'
    )


def test_a_cut_off_istanbul_report_is_an_error(tmp_path: Path) -> None:
    text = json.dumps(_istanbul("/ws/lib/b.js"))
    report = written(tmp_path, "coverage-final.json", text[: len(text) // 2])

    with pytest.raises(SensorError) as raised:
        istanbul_json(report, tmp_path)

    assert str(raised.value).startswith("coverage-final.json:1: not JSON: ")


# --- Cobertura XML ----------------------------------------------------------------------

COBERTURA = """<?xml version="1.0" ?>
<coverage line-rate="0.5" branch-rate="0.5" version="1.9">
  <sources><source>{source}</source></sources>
  <packages><package name="pkg"><classes>
    <class name="calc.py" filename="pkg/calc.py" line-rate="0.5" branch-rate="0.5">
      <methods/>
      <lines>
        <line number="1" hits="1"/>
        <line number="2" hits="1" branch="true" condition-coverage="50% (1/2)"/>
        <line number="3" hits="0"/>
      </lines>
    </class>
  </classes></package></packages>
</coverage>
"""


def test_cobertura_names_files_under_its_source_folder_and_reads_condition_coverage(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "ws"
    (ws / "src/pkg").mkdir(parents=True)
    (ws / "src/pkg/calc.py").write_text("x\n")
    report = written(tmp_path, "coverage.xml", COBERTURA.format(source=ws / "src"))

    entry = cobertura_xml(report, ws)["src/pkg/calc.py"]

    assert lines_of(entry) == ([1, 2], [3])
    assert (entry["branches"], entry["covered_branches"]) == (2, 1)


def test_a_truncated_cobertura_report_is_an_error_naming_where(tmp_path: Path) -> None:
    report = written(tmp_path, "coverage.xml", COBERTURA.format(source="/ws")[:300])

    with pytest.raises(SensorError) as raised:
        cobertura_xml(report, tmp_path)

    assert str(raised.value).startswith("coverage.xml:")
    assert "not XML: " in str(raised.value)


# --- JaCoCo XML -------------------------------------------------------------------------

# Shaped as JaCoCo's XML formatter writes a report (one line, no whitespace), following its
# DTD (jacoco/jacoco org.jacoco.report/src/org/jacoco/report/xml/report.dtd, "-//JACOCO//DTD
# Report 1.1//EN"): <report> > <sessioninfo>, <group> > <package name> (VM notation) >
# <class> with <method> counters, and <sourcefile name> > <line nr mi ci mb cb>, with
# <counter>s at every level. Cart.java's line 6 (``return 0``) never ran and line 5's `if`
# took one of its two branches; Vat.java was never loaded.
JACOCO = Path(__file__).resolve().parents[1] / "fixtures" / "coverage" / "jacoco.xml"
CART = (
    "package com.example.shop;\n\npublic class Cart {\n"
    "    public int total(int price, int qty) {\n        if (qty <= 0) {\n"
    "            return 0;\n        }\n        return price * qty;\n    }\n}\n"
)
VAT = (
    "package com.example.shop.tax;\n\npublic final class Vat {\n"
    "    static int of(int x) { return x / 5; }\n}\n"
)
MAIN = "shop/src/main/java/com/example/shop/"


def java_workspace(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_jacoco_names_each_sourcefile_by_the_workspace_file_its_package_path_ends(
    tmp_path: Path,
) -> None:
    ws = java_workspace(
        tmp_path / "ws",
        {
            MAIN + "Cart.java": CART,
            MAIN + "tax/Vat.java": VAT,
            "shop/build/tmp/com/example/shop/Cart.java": CART,  # a build's copy is not source
        },
    )

    found = jacoco_xml(JACOCO, ws)

    assert sorted(found) == [MAIN + "Cart.java", MAIN + "tax/Vat.java"]
    cart = found[MAIN + "Cart.java"]
    assert lines_of(cart) == ([3, 5, 8], [6])
    assert (cart["branches"], cart["covered_branches"]) == (2, 1)
    assert lines_of(found[MAIN + "tax/Vat.java"]) == ([], [4])


def test_a_jacoco_name_no_single_workspace_file_ends_with_is_kept_as_reported(
    tmp_path: Path,
) -> None:
    ws = java_workspace(
        tmp_path / "ws",
        {  # two modules with the same class: which one the report means is not guessed
            "a/src/main/java/com/example/shop/Cart.java": CART,
            "b/src/main/java/com/example/shop/Cart.java": CART,
        },
    )

    assert sorted(jacoco_xml(JACOCO, ws)) == [
        "com/example/shop/Cart.java",
        "com/example/shop/tax/Vat.java",
    ]


def test_a_truncated_jacoco_report_is_an_error_naming_where(tmp_path: Path) -> None:
    report = written(tmp_path, "jacoco.xml", JACOCO.read_text()[:900])

    with pytest.raises(SensorError) as raised:
        jacoco_xml(report, tmp_path)

    assert str(raised.value).startswith("jacoco.xml:1:")
    assert "not XML: " in str(raised.value)


def test_a_cobertura_report_is_not_read_as_jacoco(tmp_path: Path) -> None:
    report = written(tmp_path, "coverage.xml", COBERTURA.format(source="/ws"))

    with pytest.raises(SensorError) as raised:
        jacoco_xml(report, tmp_path)

    assert str(raised.value) == "coverage.xml: the root element is <coverage>, not <report>"


def test_a_jacoco_line_count_that_is_not_a_number_is_an_error_naming_the_line(
    tmp_path: Path,
) -> None:
    report = written(tmp_path, "jacoco.xml", JACOCO.read_text().replace('ci="4"', 'ci="four"'))

    with pytest.raises(SensorError) as raised:
        jacoco_xml(report, tmp_path)

    assert str(raised.value) == (
        "jacoco.xml: <sourcefile name='com/example/shop/Cart.java'> <line> ci: "
        "expected a number, got 'four'"
    )


# --- Go coverprofile --------------------------------------------------------------------


def test_a_go_coverprofile_names_files_by_import_path_and_counts_each_line_of_a_block(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "ws"
    (ws / "calc").mkdir(parents=True)
    (ws / "calc/clamp.go").write_text("package calc\n")
    report = written(
        tmp_path,
        "cover.out",
        "mode: set\n"
        "example.com/shop/calc/clamp.go:3.34,4.12 1 1\n"
        "example.com/shop/calc/clamp.go:4.12,6.3 1 0\n"
        "example.com/shop/calc/clamp.go:7.2,7.10 1 1\n"
        "example.com/other/x.go:1.1,2.2 1 1\n",
    )

    found = go_coverprofile(report, ws)

    assert lines_of(found["calc/clamp.go"]) == ([3, 4, 7], [5, 6])
    assert found["calc/clamp.go"]["branches"] == 0
    assert "example.com/other/x.go" in found  # no workspace file by that name: kept as named


def test_a_go_coverprofile_without_its_mode_line_is_an_error(tmp_path: Path) -> None:
    report = written(tmp_path, "cover.out", "calc/clamp.go:3.34,4.12 1 1\n")

    with pytest.raises(SensorError) as raised:
        go_coverprofile(report, tmp_path)

    assert str(raised.value) == "cover.out:1: not a Go coverprofile (no 'mode:' line)"


def test_a_cut_off_go_coverprofile_block_is_an_error(tmp_path: Path) -> None:
    report = written(tmp_path, "cover.out", "mode: count\ncalc/clamp.go:3.34,4.12 1 1\ncalc/cl")

    with pytest.raises(SensorError) as raised:
        go_coverprofile(report, tmp_path)

    assert str(raised.value) == "cover.out:3: not a coverprofile block: 'calc/cl'"


# --- paths ------------------------------------------------------------------------------


def test_paths_inside_the_workspace_become_relative_and_those_outside_are_none(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "src/a.ts").write_text("x\n")
    (tmp_path / "link").symlink_to(ws)

    assert workspace_path(ws, f"{ws}/src/a.ts") == "src/a.ts"
    assert workspace_path(ws, f"file://{ws}/src/a.ts") == "src/a.ts"
    assert workspace_path(tmp_path / "link", f"{ws}/src/a.ts") == "src/a.ts"
    assert workspace_path(ws, "./src/../src/a.ts") == "src/a.ts"
    assert workspace_path(ws, "/usr/lib/node/x.js") is None
    assert workspace_path(ws, "../outside.js") is None


# --- reports written by the real tools ---------------------------------------------------


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return node_modules(tmp_path_factory)


def _run(ws: Path, argv: list[str]) -> None:
    done = subprocess.run(argv, cwd=ws, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


def test_vitest_lcov_and_istanbul_reports_agree_and_name_the_branch_no_test_runs(
    tmp_path: Path, installed: Path
) -> None:
    ws = js_workspace(
        tmp_path / "ws",
        {"package.json": ESM, "src/clamp.js": CLAMP_ESM, "tests/clamp.test.js": VITEST_TEST},
        installed,
    )
    out = tmp_path / "out"
    _run(ws, [str(ws / "node_modules/.bin/vitest"), "run", "tests", "--coverage.enabled=true",
              "--coverage.provider=v8", "--coverage.reporter=lcovonly",
              "--coverage.reporter=json", f"--coverage.reportsDirectory={out}",
              "--coverage.include=src/clamp.js"])  # fmt: skip

    from_lcov = lcov(out / "lcov.info", ws)
    from_json = istanbul_json(out / "coverage-final.json", ws)

    assert list(from_lcov) == list(from_json) == ["src/clamp.js"]
    assert 6 in from_lcov["src/clamp.js"]["missing"]
    assert 3 in from_lcov["src/clamp.js"]["executed"]
    assert lines_of(from_lcov["src/clamp.js"]) == lines_of(from_json["src/clamp.js"])


def test_jest_lcov_istanbul_and_cobertura_reports_give_the_same_lines(
    tmp_path: Path, installed: Path
) -> None:
    ws = js_workspace(
        tmp_path / "ws",
        {"package.json": COMMONJS, "src/clamp.js": CLAMP_CJS, "tests/clamp.test.js": JEST_TEST},
        installed,
    )
    out = tmp_path / "out"
    _run(ws, [str(ws / "node_modules/.bin/jest"), "tests", "--coverage",
              "--coverageReporters=lcovonly", "--coverageReporters=json",
              "--coverageReporters=cobertura", f"--coverageDirectory={out}",
              "--collectCoverageFrom=src/clamp.js"])  # fmt: skip

    reports = [
        lcov(out / "lcov.info", ws),
        istanbul_json(out / "coverage-final.json", ws),
        cobertura_xml(out / "cobertura-coverage.xml", ws),
    ]

    assert [list(r) for r in reports] == [["src/clamp.js"]] * 3
    assert [lines_of(r["src/clamp.js"]) for r in reports] == [([2, 3, 5, 8, 10], [6])] * 3
    assert [(r["src/clamp.js"]["branches"], r["src/clamp.js"]["covered_branches"])
            for r in reports] == [(4, 3)] * 3  # fmt: skip


def test_node_test_runners_lcov_names_the_line_no_test_runs(tmp_path: Path) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    ws = tmp_path / "ws"
    for name, text in {"src/clamp.js": CLAMP_CJS, "tests/clamp.test.js": NODE_TEST}.items():
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        (ws / name).write_text(text)
    out = tmp_path / "lcov.info"
    _run(ws, [node, "--experimental-test-coverage", "--test-reporter=lcov",
              f"--test-reporter-destination={out}", "--test", "tests/"])  # fmt: skip

    found = lcov(out, ws)

    assert {"src/clamp.js", "tests/clamp.test.js"} <= set(found)
    assert found["src/clamp.js"]["missing"] == [6, 7]  # v8's block ends at its closing brace
