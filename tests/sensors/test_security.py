"""security: ruff's bandit and swallowed-exception rules, whatever the workspace's lint selects."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.sensors.support import commit_all, make_workspace, run_one

ONLY_E = "[tool.ruff.lint]\nselect = ['E']\n"
APP = (
    "def find(db, name):\n"
    '    return db.execute("SELECT * FROM users WHERE name = \'" + name + "\'")\n'
    "\n"
    "\n"
    'PASSWORD = "hunter2-correct-horse"\n'
    "\n"
    "\n"
    "def swallow():\n"
    "    try:\n"
    "        return 1\n"
    "    except Exception:\n"
    "        pass\n"
)
SUPPRESSED = (
    "def find(db, name):\n"
    '    return db.execute("SELECT * FROM t WHERE n = \'" + name + "\'")  # noqa: S608\n'
)
TEST_FILE = 'def test_login():\n    password = "pw"\n    assert password\n'


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return make_workspace(
        tmp_path / "ws",
        {
            "pyproject.toml": ONLY_E,
            "app/db.py": APP,
            "app/quiet.py": SUPPRESSED,
            "tests/test_login.py": TEST_FILE,
        },
    )


def test_sql_concatenation_and_a_hard_coded_password_block_where_the_workspace_selects_only_e(
    ws: Path,
) -> None:
    lint = run_one(ws, ["app/db.py"], "linter")
    assert lint.findings == ()  # the workspace's own selection sees nothing
    result = run_one(ws, ["app/db.py"], "security")
    assert result.status == "failed"
    assert [(f.path, f.line, f.rule, f.severity) for f in result.findings] == [
        ("app/db.py", 2, "S608", "major"),
        ("app/db.py", 5, "S105", "major"),
        ("app/db.py", 11, "BLE001", "minor"),
        ("app/db.py", 11, "S110", "minor"),
    ]
    assert {f.category for f in result.findings} == {"security"}
    sql = result.findings[0]
    assert sql.message == (
        "S608 Possible SQL injection vector through string-based query construction "
        "(https://docs.astral.sh/ruff/rules/hardcoded-sql-expression)"
    )
    assert result.command.startswith("ruff check --isolated --select S,BLE001,E722,B012 ")
    assert sorted(p.name for p in ws.iterdir()) == ["app", "pyproject.toml", "tests"]  # no cache


def test_noqa_for_the_rule_on_the_line_at_the_base_suppresses_it(ws: Path) -> None:
    commit_all(ws)
    result = run_one(ws, ["app/quiet.py"], "security")
    assert (result.status, result.findings) == ("passed", ())


def test_noqa_the_change_adds_hides_nothing_and_is_named(ws: Path) -> None:
    (ws / "app/quiet.py").write_text("")
    commit_all(ws)
    (ws / "app/quiet.py").write_text(SUPPRESSED)

    result = run_one(ws, ["app/quiet.py"], "security")

    assert [(f.path, f.line, f.rule, f.severity) for f in result.findings] == [
        ("app/quiet.py", 2, "S608", "major"),
    ]
    assert result.findings[0].message.endswith(
        "; hidden by `# noqa: S608` (line 2, added by this change), which does not count"
    )


def test_asserts_and_fake_passwords_in_test_files_are_not_reported(ws: Path) -> None:
    result = run_one(ws, ["tests/test_login.py"], "security")
    assert (result.status, result.findings) == ("passed", ())


def test_without_ruff_the_required_lens_could_not_verify_and_blocks(
    ws: Path, tmp_path: Path
) -> None:
    (tmp_path / "empty").mkdir()
    result = run_one(ws, ["app/db.py"], "security", settings={"tool_path": str(tmp_path / "empty")})
    assert result.status == "skipped"
    assert result.reason == "ruff not found on PATH"
    assert result.blocking
