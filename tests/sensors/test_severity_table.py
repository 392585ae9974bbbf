"""One severity per ruff rule by exact code, shared by the linter and the security lens.

Real ruff on small files; docs/severity.md is checked against the table itself.
"""

from __future__ import annotations

import json
import re
import subprocess
from functools import cache
from pathlib import Path

import pytest

from aidlc_review.sensors.rule_severity import Overrides, groups, table
from tests.sensors.support import make_workspace, run_one

DOC = Path(__file__).resolve().parents[2] / "docs" / "severity.md"
RUFF = Path(__file__).resolve().parents[2] / ".venv" / "bin" / "ruff"


def _doc_rows() -> list[tuple[str, tuple[str, ...], str, str, str]]:
    text = DOC.read_text()
    table = text.split("<!-- table:", 1)[1].split("<!-- end of table -->", 1)[0]
    rows = []
    for line in table.splitlines()[3:]:  # the marker's rest, the header and the rule line
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        codes = tuple(re.findall(r"`([^`]+)`", cells[1]))
        rows.append((cells[0], codes, cells[2], cells[3], cells[4]))
    return rows


def test_the_documented_table_is_the_table_the_sensors_use() -> None:
    expected = [
        (
            g.title,
            g.codes,
            g.severity,
            g.in_tests,
            (g.floor or "-") + (" (also in tests)" if g.floor_in_tests else ""),
        )
        for g in groups()
    ]
    assert _doc_rows() == expected


@cache
def _ruff_codes() -> frozenset[str]:
    out = subprocess.run(
        [str(RUFF), "rule", "--all", "--output-format", "json"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return frozenset(rule["code"] for rule in json.loads(out) if rule["code"])


def test_every_ruff_code_in_the_table_is_a_rule_of_the_installed_ruff() -> None:
    ruffs = {code for code in table() if ":" not in code}  # a described tool's: ``eslint:...``
    unknown = sorted(ruffs - _ruff_codes() - {"invalid-syntax", "syntax"})
    assert unknown == []


@pytest.mark.parametrize(
    ("code", "path", "severity"),
    [
        ("F401", "src/a.py", "major"),
        ("FIX002", "src/a.py", "minor"),  # F is pyflakes; a TODO is not
        ("FURB101", "src/a.py", "minor"),
        ("SIM103", "src/a.py", "minor"),  # S is bandit; a simplification is not
        ("BLE001", "src/a.py", "minor"),  # B is bugbear; BLE is not
        ("B006", "src/a.py", "major"),
        ("B905", "src/a.py", "minor"),  # bugbear's opinions are not in the table
        ("E999", "src/a.py", "critical"),
        ("invalid-syntax", "tests/test_a.py", "critical"),
        ("S608", "src/a.py", "major"),
        ("S608", "tests/test_a.py", "major"),
        ("S301", "src/a.py", "major"),
        ("S301", "tests/test_keys.py", "minor"),
        ("S101", "src/a.py", "minor"),
        ("S101", "pkg/tests/test_a.py", "off"),
        ("S105", "conftest.py", "off"),
        ("S311", "src/a.py", "major"),
        ("S311", "src/a_test.py", "off"),
        ("E722", "src/a.py", "major"),
        ("E722", "tests/test_a.py", "minor"),
        ("PLR2004", "src/a.py", "minor"),
    ],
)
def test_a_rule_has_one_severity_by_exact_code_and_place(
    code: str, path: str, severity: str
) -> None:
    assert Overrides().resolve(code, path) == severity


def test_overrides_apply_in_order_and_never_below_a_floor() -> None:
    overrides = Overrides.from_settings(
        {
            "test_files": ["spec/**"],
            "rules": {"T201": "major", "S608": "minor", "S311": "minor"},
            "tests": {"S608": "minor", "E999": "minor"},
            "paths": {"scripts/**": {"S311": "off"}, "scripts/keep/**": {"S311": "major"}},
        }
    )
    assert overrides.resolve("T201", "src/a.py") == "major"
    assert overrides.resolve("S608", "src/a.py") == "major"  # the floor, whatever the dict says
    assert overrides.resolve("S608", "spec/a.py") == "minor"  # tests may
    assert overrides.resolve("S608", "tests/test_a.py") == "major"  # not a test file here
    assert overrides.resolve("E999", "spec/a.py") == "critical"
    assert overrides.resolve("S311", "src/a.py") == "minor"
    assert overrides.resolve("S311", "scripts/run.py") == "off"
    assert overrides.resolve("S311", "scripts/keep/run.py") == "major"  # the later glob wins


BOTH = """\
def load(path):
    try:
        return open(path).read()
    except Exception:
        return None


def read(path):
    try:
        return open(path).read()
    except:
        return None


def find(db, name):
    return db.execute("SELECT * FROM t WHERE n = '" + name + "'")
"""


def test_the_linter_and_the_security_lens_give_a_rule_the_same_severity(tmp_path: Path) -> None:
    config = "[tool.ruff.lint]\nselect = ['E', 'F', 'BLE', 'S']\n"
    ws = make_workspace(tmp_path / "ws", {"pyproject.toml": config, "src/a.py": BOTH})
    lint = {(f.line, f.rule, f.severity) for f in run_one(ws, ["src/a.py"], "linter").findings}
    lens = {(f.line, f.rule, f.severity) for f in run_one(ws, ["src/a.py"], "security").findings}
    assert {(4, "BLE001", "minor"), (11, "E722", "major"), (16, "S608", "major")} <= lint & lens


PICKLE_TEST = """\
import pickle


def test_keys_survive_a_pickle_round_trip():
    key = ("a", 1)
    assert pickle.loads(pickle.dumps(key)) == key
"""
DEFAULTS = """\
def split(text: str, floor_token: str = "<", sep: str = "--") -> list[str]:
    return text.split(floor_token + sep)


def connect(user: str, password: str = "hunter2-correct-horse") -> str:
    return user + password
"""


def test_a_pickle_round_trip_test_and_a_punctuation_default_do_not_block(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", {"tests/test_keys.py": PICKLE_TEST, "src/d.py": DEFAULTS})
    result = run_one(ws, ["src/d.py", "tests/test_keys.py"], "security")
    found = [(f.path, f.line, f.rule, f.severity) for f in result.findings]
    assert found == [
        ("src/d.py", 1, "S107", "minor"),  # floor_token; ruff does not call sep a password
        ("src/d.py", 5, "S107", "major"),  # a value that can be a password still blocks
        ("tests/test_keys.py", 6, "S301", "minor"),
    ]
    short = result.findings[0].message
    assert short.endswith("(the value is too short or has no letter or digit to be a credential)")
    assert '"<"' not in short and "hunter2" not in result.findings[1].message


RISKY = """\
import hashlib
import random
import tarfile
import tempfile

import requests


def token_for(secret: bytes) -> str:
    digest = hashlib.md5(secret).hexdigest()
    salt = random.randint(0, 9)
    requests.get("https://example.invalid")
    name = tempfile.mktemp()
    with tarfile.open(name) as archive:
        archive.extractall("out")
    return f"{digest}{salt}"
"""


def test_weak_hashes_random_no_timeout_mktemp_and_extractall_block_outside_tests_only(
    tmp_path: Path,
) -> None:
    ws = make_workspace(tmp_path / "ws", {"src/risky.py": RISKY, "tests/test_risky.py": RISKY})
    result = run_one(ws, ["src/risky.py", "tests/test_risky.py"], "security")
    found = {(f.path, f.line, f.rule, f.severity) for f in result.findings}
    expected = {10: "S324", 11: "S311", 12: "S113", 13: "S306", 15: "S202"}
    assert {(p, n, r, s) for p, n, r, s in found if p == "src/risky.py"} == {
        ("src/risky.py", line, rule, "major") for line, rule in expected.items()
    }
    in_tests = {(n, r, s) for p, n, r, s in found if p == "tests/test_risky.py"}
    assert in_tests == {(line, rule, "minor") for line, rule in expected.items() if line != 11}


def test_the_workspace_overrides_reach_the_security_lens_through_the_settings(
    tmp_path: Path,
) -> None:
    ws = make_workspace(tmp_path / "ws", {"src/risky.py": RISKY})
    settings = {"severity": {"rules": {"S311": "off", "S324": "minor"}}}
    result = run_one(ws, ["src/risky.py"], "security", settings=settings)
    rules = {(f.rule, f.severity) for f in result.findings}
    assert ("S324", "minor") in rules and "S311" not in {r for r, _ in rules}
    assert ("S113", "major") in rules
    # a cached result does not outlive a changed override
    again = run_one(ws, ["src/risky.py"], "security", settings={"severity": {}})
    assert ("S311", "major") in {(f.rule, f.severity) for f in again.findings}
