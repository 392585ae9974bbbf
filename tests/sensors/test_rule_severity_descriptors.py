"""The severity table is descriptor data: each tool's ``severities`` in its sensor manifest,
validated when the manifest is read, read by ``sensors.rule_severity`` for any tool's rule
ids, with judgment unchanged from the table that was Python code.

``data/rule_severity_247bd11.json`` is that old table, frozen: made once by loading
``compiler/aidlc_review/sensors/rule_severity.py`` as it stood at commit 247bd11 (``git show
247bd11:compiler/aidlc_review/sensors/rule_severity.py``, imported from a scratch file) and
dumping its ``GROUPS`` (title, codes, severity, in_tests, floor, floor_in_tests) and
``TEST_FILES`` with ``json.dumps``. It is never regenerated from the new code.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from aidlc_review.errors import InvalidInput, ValidationFailed
from aidlc_review.sensors.descriptors import where_tests_are
from aidlc_review.sensors.manifests import load_sensor_manifests
from aidlc_review.sensors.rule_severity import (
    Overrides,
    RuleGroup,
    default_test_files,
    floors,
    groups,
    groups_of,
    is_default_test_file,
    table,
)

ROOT = Path(__file__).resolve().parents[2]
FROZEN = json.loads((Path(__file__).parent / "data" / "rule_severity_247bd11.json").read_text())
APP, TEST = "src/orders/app.py", "tests/test_app.py"


def _row(group: RuleGroup) -> dict[str, object]:
    return {
        "title": group.title,
        "codes": list(group.codes),
        "severity": group.severity,
        "in_tests": group.in_tests,
        "floor": group.floor,
        "floor_in_tests": group.floor_in_tests,
    }


def _ruffs(found: tuple[RuleGroup, ...]) -> list[RuleGroup]:
    """The groups of ruff's codes (a described tool's are ``tool:rule``, newer than the
    frozen table)."""
    return [g for g in found if not any(":" in code for code in g.codes)]


def test_the_descriptors_table_is_the_frozen_table_of_the_python_code_it_replaced() -> None:
    assert [_row(g) for g in _ruffs(groups())] == FROZEN["groups"]


def test_every_frozen_rule_keeps_its_severity_in_tests_and_floors_when_resolved() -> None:
    plain = Overrides()
    lowest = Overrides(rules={c: "off" for g in FROZEN["groups"] for c in g["codes"]})
    lowest_in_tests = Overrides(tests={c: "off" for g in FROZEN["groups"] for c in g["codes"]})
    for group in FROZEN["groups"]:
        for code in group["codes"]:
            assert plain.resolve(code, APP) == group["severity"], code
            assert plain.resolve(code, TEST) == group["in_tests"], code
            assert lowest.resolve(code, APP) == (group["floor"] or "off"), code
            assert lowest_in_tests.resolve(code, TEST) == (group["floor_in_tests"] or "off"), code
            assert floors().get(code) == group["floor"], code
            assert floors(in_tests=True).get(code) == group["floor_in_tests"], code
    ruffs = [code for code in table() if ":" not in code]
    assert len(ruffs) == sum(len(g["codes"]) for g in FROZEN["groups"])


def _harness(tmp_path: Path) -> Path:
    """A copy of the shipped manifests (and the stages a harness needs) to edit."""
    for folder in ("sensors", "stages"):
        shutil.copytree(ROOT / folder, tmp_path / folder)
    return tmp_path


def _edit(harness: Path, sensor: str, old: str, new: str) -> None:
    path = harness / "sensors" / f"aidlc-{sensor}.md"
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1))


def test_a_bad_level_is_refused_naming_the_manifest_line_and_key(tmp_path: Path) -> None:
    harness = _harness(tmp_path)
    _edit(harness, "linter", 'in_tests: "off"', "in_tests: none")
    with pytest.raises(ValidationFailed) as refused:
        load_sensor_manifests(harness)
    said = str(refused.value)
    assert "sensors/aidlc-linter.md:" in said
    assert "runner.tools[0].severities[3].in_tests" in said
    assert "must be one of critical, major, minor, off" in said and '"none"' in said


def test_a_code_in_two_groups_of_one_tool_is_refused_when_the_manifest_is_read(
    tmp_path: Path,
) -> None:
    harness = _harness(tmp_path)
    _edit(harness, "linter", "codes: [S311]", "codes: [S311, S608]")
    with pytest.raises(ValidationFailed, match=r"runner\.tools\[0\]\.severities.*'S608'"):
        load_sensor_manifests(harness)


def test_a_described_tools_rules_get_severities_and_floors_by_tool_rule_id() -> None:
    """eslint's injection rules (the linter's and the security lens's alike) are keyed
    ``eslint:no-eval``, apart from ruff's codes, with ``S307``'s floor."""
    by_id = table()
    assert by_id["eslint:no-eval"].floor == "major" and "no-eval" not in by_id
    assert by_id["S608"] is not by_id["eslint:no-eval"]  # ruff's codes keep their own
    over = Overrides(rules={"eslint:no-eval": "off"}, severities=by_id)
    # the table beats the tool's own level; the floor beats the override
    assert over.tuned("eslint:no-eval", "src/a.ts", "minor") == "major"
    assert over.tuned("eslint:no-eval", "src/a.test.ts", "minor") == "off"  # no floor in tests
    assert Overrides(severities=by_id).tuned("eslint:no-new-func", "a.test.ts", "x") == "major"
    # a rule in no group keeps the tool's level
    assert Overrides(severities=by_id).tuned("eslint:no-console", "src/a.ts", "minor") == "minor"
    assert Overrides(severities=by_id).tuned("eslint:eqeqeq", "src/a.ts", "major") == "major"


def test_a_rule_id_with_severities_in_two_tools_is_refused_naming_both(tmp_path: Path) -> None:
    harness = _harness(tmp_path)
    anchor = '      security_rules: "S[0-9]{3}"\n      defects: {S105'
    group = (
        "      severities:\n"
        '        - {title: again, codes: [S608], severity: minor, in_tests: "off"}\n'
    )
    _edit(harness, "security", anchor, group + anchor)
    manifests = load_sensor_manifests(harness)  # each tool's own table is valid
    with pytest.raises(InvalidInput) as refused:
        groups_of(manifests)
    said = str(refused.value)
    assert "sensors/aidlc-security.md: runner.tools[0] (ruff).severities: 'S608'" in said
    assert "sensors/aidlc-linter.md: runner.tools[0] (ruff).severities" in said


def test_the_default_test_files_are_the_test_globs_the_project_uses() -> None:
    assert default_test_files() == where_tests_are()
    assert Overrides().test_files == where_tests_are()


# what the old globs (``**/test_*.py``, ``**/*_test.py``, ``**/conftest.py``, ``**/tests/**``,
# ``**/test/**``) called a test and a Python or JavaScript linter reports on: still tests
STILL_TESTS = (
    "pkg/test_x.py",
    "pkg/x_test.py",
    "conftest.py",
    "a/conftest.py",
    "a/tests/b.py",
    "tests/__init__.py",
    "tests/helpers/support.py",
    "test/c.py",
    "tests/stubs/x.pyi",
    "tests/fixtures/app.ts",
    "test/setup.js",
)
NEWLY_TESTS = ("src/a.test.ts", "src/a.spec.js", "src/__tests__/a.tsx", "pkg/a_test.go")
NO_LONGER_TESTS = ("tests/data/config.json", "test/main.go", "tests/README.md")


def test_python_test_files_and_test_folders_are_still_test_files() -> None:
    for path in STILL_TESTS:
        assert is_default_test_file(path), path
        assert Overrides().is_test(path), path
    for path in ("src/testing.py", "src/app.py", "src/contest.py", "src/attest/a.py"):
        assert not Overrides().is_test(path), path


def test_typescript_and_go_tests_now_count_and_other_files_in_test_folders_do_not() -> None:
    for path in NEWLY_TESTS:
        assert Overrides().is_test(path), path
    assert Overrides().resolve("S101", "src/a.test.ts") == "off"
    for path in NO_LONGER_TESTS:
        assert not Overrides().is_test(path), path


def test_the_workspaces_test_files_still_replace_the_descriptors() -> None:
    own = Overrides.from_settings({"test_files": ["checks/**"]})
    assert own.is_test("checks/a.py") and not own.is_test("tests/test_a.py")
    assert Overrides.from_settings({"test_files": None}).test_files == where_tests_are()


def test_importing_the_severity_table_reads_no_manifest() -> None:
    script = (
        "import sys\n"
        "import aidlc_review.review.inputs.workspace_settings\n"
        "import aidlc_review.review.findings.grouping\n"
        "from aidlc_review.sensors import rule_severity\n"
        "print(sorted(m for m in ('ruamel', 'aidlc_review.sensors.descriptors',\n"
        "    'aidlc_review.sensors.manifests') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (0, "[]\n"), done.stderr
