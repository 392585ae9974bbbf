"""``[tool.aidlc-review.severity]``: the workspace tunes the rule table, never below a floor.

An override below a floor is refused when pyproject.toml is read (exit 2, the file, the line
and the key); one that is allowed reaches both ruff sensors of a real review run.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from aidlc_review.errors import ValidationFailed
from aidlc_review.review.inputs.workspace_settings import load_settings
from tests.review.workspace import PYPROJECT, UNIT, findings_doc, git, make_workspace, review_args

ALLOWED = """
[tool.aidlc-review.severity]
test-files = ["testing/**", "**/test_*.py"]
rules = { S311 = "minor", T201 = "major" }
tests = { S608 = "minor", S301 = "off" }

[tool.aidlc-review.severity.paths]
"scripts/**" = { S113 = "off" }
"""


def _pyproject(tmp_path: Path, extra: str) -> Path:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT + extra)
    return tmp_path


def test_overrides_at_or_above_the_floors_are_read_for_the_sensors(tmp_path: Path) -> None:
    settings = load_settings(_pyproject(tmp_path, ALLOWED))
    assert settings.severity is not None
    assert settings.for_unit(UNIT).severity == settings.severity
    assert settings.severity.for_sensors() == {
        "test_files": ["testing/**", "**/test_*.py"],
        "rules": {"S311": "minor", "T201": "major"},
        "tests": {"S608": "minor", "S301": "off"},
        "paths": {"scripts/**": {"S113": "off"}},
    }


LINE = PYPROJECT.count("\n") + 1  # the first line of the text appended to PYPROJECT


@pytest.mark.parametrize(
    ("extra", "line", "key", "message"),
    [
        (
            '\n[tool.aidlc-review.severity]\nrules = { S608 = "minor" }\n',
            2,
            "severity.rules.S608",
            "'minor' is below the floor: injection: SQL, shell commands, exec and eval built "
            "from data stays major outside test files; only tests may lower it",
        ),
        (
            '\n[tool.aidlc-review.severity.rules]\nS301 = "off"\n',
            2,
            "severity.rules.S301",
            "'off' is below the floor: unsafe deserialization stays major outside test files; "
            "only tests may lower it",
        ),
        (
            '\n[tool.aidlc-review.severity.paths]\n"tests/**" = { S506 = "minor" }\n',
            2,
            'severity.paths["tests/**"].S506',
            "'minor' is below the floor: unsafe deserialization stays major outside test "
            "files; only tests may lower it",
        ),
        (
            '\n[tool.aidlc-review.severity.tests]\nE999 = "minor"\n',
            2,
            "severity.tests.E999",
            "'minor' is below the floor: the file does not parse stays critical in test files",
        ),
        (
            '\n[tool.aidlc-review.severity.rules]\n"Secret Keyword" = "minor"\n',
            2,
            'severity.rules["Secret Keyword"]',
            "'Secret Keyword' is not a rule id (a code like 'S608', or tool:rule as the tool's "
            "findings name it); a secret the secret-scan finds is always critical and cannot "
            "be overridden",
        ),
        (
            '\n[tool.aidlc-review.severity]\ntest-files = ["**"]\n',
            2,
            "severity.test-files",
            "'**' does not name tests (a test glob contains 'test'): it would make other "
            "files test files and lift the floors on them",
        ),
        (
            '\n[tool.aidlc-review.severity]\nrules = { S101 = "ignore" }\n',
            2,
            "severity.rules.S101",
            "must be one of critical, major, minor, off; got \"ignore\" (did you mean 'minor'?)",
        ),
        (
            f'\n[tool.aidlc-review.units.{UNIT}.severity]\nrules = {{ S101 = "off" }}\n',
            1,
            f"units.{UNIT}.severity",
            "set it in [tool.aidlc-review] itself: a rule has one severity in the whole "
            "workspace (use its paths table for one folder)",
        ),
    ],
)
def test_an_override_below_a_floor_or_of_no_rule_is_refused_with_its_line_and_key(
    tmp_path: Path, extra: str, line: int, key: str, message: str
) -> None:
    ws = _pyproject(tmp_path, extra)
    with pytest.raises(ValidationFailed) as caught:
        load_settings(ws)
    [problem] = caught.value.diagnostics
    assert (problem.path, problem.line, problem.key) == (
        str(ws / "pyproject.toml"),
        LINE + line,
        f"[tool.aidlc-review].{key}",
    )
    assert problem.message == message


def test_a_review_with_an_override_below_a_floor_exits_2_naming_the_file_line_and_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = make_workspace(tmp_path / "ws", {"src/db.py": "x = 1\n"})
    (ws / "pyproject.toml").write_text(
        PYPROJECT + '\n[tool.aidlc-review.severity]\nrules = { S602 = "minor" }\n'
    )
    assert main(review_args(ws)) == 2
    assert capsys.readouterr().err == (
        f"{ws / 'pyproject.toml'}:{LINE + 2}: [tool.aidlc-review].severity.rules.S602: "
        "'minor' is below the floor: injection: SQL, shell commands, exec and eval built from "
        "data stays major outside test files; only tests may lower it\n"
    )


APP = """\
import random


def jitter() -> float:
    return random.random()
"""
FIXTURE_TEST = """\
import pickle


def test_round_trip():
    key = ("a", 1)
    assert pickle.loads(pickle.dumps(key)) == key
"""


def test_allowed_overrides_reach_both_ruff_sensors_in_a_review_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = make_workspace(
        tmp_path / "ws", {"src/app/jitter.py": APP, "tests/test_round_trip.py": FIXTURE_TEST}
    )
    config = PYPROJECT.replace('"E", "F", "W"', '"E", "F", "W", "S"') + (
        '\n[tool.aidlc-review.severity]\nrules = { S311 = "minor" }\ntests = { S301 = "off" }\n'
    )
    (ws / "pyproject.toml").write_text(config)
    identity = ("-c", "user.name=t", "-c", "user.email=t@example.invalid")
    git(ws, *identity, "commit", "-qam", "severity overrides")
    assert main(review_args(ws)) == 0
    findings = findings_doc(ws)["passes"][-1]["findings"]
    ruff = {(f["rule"], f["severity"], tuple(f["checks"])) for f in findings if f.get("rule")}
    assert ("S311", "minor", ("linter", "security")) in ruff
    assert not {rule for rule, _, _ in ruff} & {"S301", "S101", "S105"}


def test_the_commit_hook_judges_staged_files_with_the_same_overrides(tmp_path: Path) -> None:
    from aidlc_review.hooks.staged import sensors_on_staged

    ws = make_workspace(tmp_path / "ws", {"src/app/jitter.py": APP})
    (ws / "pyproject.toml").write_text(
        PYPROJECT + '\n[tool.aidlc-review.severity.paths]\n"src/app/**" = { S311 = "minor" }\n'
    )
    [result] = sensors_on_staged(ws, ["src/app/jitter.py"], None, ["security"], print)[UNIT]
    assert [(f.rule, f.severity) for f in result.findings] == [("S311", "minor")]


def test_sensors_fire_as_an_engine_runs_it_applies_the_same_overrides(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    ws = make_workspace(tmp_path / "ws", {"src/app/jitter.py": APP})
    (ws / "pyproject.toml").write_text(
        PYPROJECT + '\n[tool.aidlc-review.severity]\nrules = { S311 = "off" }\n'
    )
    argv = ["sensors", "fire", "security", "--workspace", str(ws), "--", "src/app/jitter.py"]
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["findings_count"] == 0
