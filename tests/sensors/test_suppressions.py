"""The change never decides how it is judged: a suppression it adds suppresses nothing.

Each tool's descriptor lists its suppression syntax; one that stood at the base (a line of
the same text) is honoured, one the change added is reported with what it hides, at the
hidden finding's severity (DESIGN.md §9).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from aidlc_review.harness.definitions.sensor import SuppressionSpec
from aidlc_review.sensors.suppressions import find_marks
from tests.sensors.support import (
    MYPY_CONFIG,
    RUFF_CONFIG,
    commit_all,
    located,
    make_workspace,
    run_one,
)

NOQA = SuppressionSpec(
    pattern=r"#\s*noqa(?::\s*(?P<rules>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?", hides="x"
)
BASE = "import os\nimport json  # noqa: F401\n\nVALUE = 1\n"


def test_a_suppression_on_a_line_of_the_same_text_at_the_base_stood_there():
    now = "import os\nimport json  # noqa: F401\nimport re  # noqa: F401, E501\n"
    marks = find_marks(now, BASE, [NOQA])
    assert [(m.line, m.text, m.rules, m.added) for m in marks] == [
        (2, "# noqa: F401", frozenset({"F401"}), False),
        (3, "# noqa: F401, E501", frozenset({"F401", "E501"}), True),
    ]


def test_a_suppression_moved_onto_other_code_or_copied_is_added():
    now = "import os  # noqa: F401\nimport json  # noqa: F401\nimport json  # noqa: F401\n"
    marks = find_marks(now, BASE, [NOQA])
    assert [(m.line, m.added) for m in marks] == [(1, True), (2, False), (3, True)]


def test_a_file_wide_suppression_widened_by_the_change_is_added():
    file_wide = SuppressionSpec(
        pattern=r"#\s*ruff:\s*noqa(?::\s*(?P<rules>[A-Z]+[0-9]+))?", hides="x", scope="file"
    )
    [mark] = find_marks("# ruff: noqa\nimport os\n", "# ruff: noqa: E501\nimport os\n", [file_wide])
    assert (mark.rules, mark.added) == (None, True)


def test_without_a_base_every_suppression_is_added():
    assert [m.added for m in find_marks(BASE, None, [NOQA])] == [True]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """A project at its base: ruff and mypy configured, one module, one honoured noqa."""
    return commit_all(
        make_workspace(
            tmp_path / "ws",
            {
                "pyproject.toml": RUFF_CONFIG,
                "mypy.ini": MYPY_CONFIG,
                "app.py": "import json  # noqa: F401\n\n\ndef f() -> int:\n    return 1\n",
            },
        )
    )


def test_a_noqa_at_the_base_is_honoured_and_one_the_change_adds_hides_nothing(ws: Path) -> None:
    (ws / "app.py").write_text(
        "import json  # noqa: F401\nimport os  # noqa\n\n\ndef f() -> int:\n    return 1\n"
    )
    result = run_one(ws, ["app.py"], "linter")
    assert located(result) == [("app.py", 2, "F401", "major")]
    assert result.findings[0].message.endswith(
        "; hidden by `# noqa` (line 2, added by this change), which does not count"
    )


def test_a_file_wide_ruff_noqa_the_change_adds_hides_nothing(ws: Path) -> None:
    (ws / "app.py").write_text("# ruff: noqa\nimport os\n\n\ndef f() -> int:\n    return 1\n")
    result = run_one(ws, ["app.py"], "linter")
    assert located(result) == [("app.py", 2, "F401", "major")]
    assert "hidden by `# ruff: noqa` (line 1, added by this change)" in result.findings[0].message


def test_a_type_ignore_the_change_adds_hides_nothing_but_one_at_the_base_still_does(
    ws: Path,
) -> None:
    (ws / "typed.py").write_text('A: int = "at the base"  # type: ignore[assignment]\n')
    commit_all(ws)
    (ws / "typed.py").write_text(
        'A: int = "at the base"  # type: ignore[assignment]\nB: int = "added"  # type: ignore\n'
    )
    result = run_one(ws, ["typed.py"], "type-check")
    assert located(result) == [("typed.py", 2, "assignment", "major")]
    assert result.findings[0].message.endswith(
        "; hidden by `# type: ignore` (line 2, added by this change), which does not count"
    )


def test_a_mypy_ignore_errors_comment_the_change_adds_hides_nothing(ws: Path) -> None:
    (ws / "typed.py").write_text('# mypy: ignore-errors\nB: int = "added"\n')
    result = run_one(ws, ["typed.py"], "type-check")
    assert located(result) == [("typed.py", 2, "assignment", "major")]
    assert "hidden by `# mypy: ignore-errors` (line 1, added" in result.findings[0].message


@pytest.fixture
def _workspace_pytest_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")


@pytest.mark.usefixtures("_workspace_pytest_alone")
def test_a_skip_marker_or_a_no_cover_pragma_the_change_adds_is_a_finding(ws: Path) -> None:
    (ws / "calc.py").write_text(
        "def add(a, b):\n    return a + b\n\n\ndef never(a):  # pragma: no cover\n    return a\n"
    )
    (ws / "test_calc.py").write_text(
        "import pytest\n\nfrom calc import add\n\n\n"
        "@pytest.mark.skip(reason='later')\ndef test_add():\n    assert add(1, 2) == 4\n"
    )
    result = run_one(
        ws,
        ["calc.py", "test_calc.py"],
        "coverage",
        settings={"coverage_command": "pytest -q test_calc.py", "coverage_threshold": 0},
    )
    suppressions = [(f.path, f.line, f.rule, f.severity) for f in result.findings]
    assert ("calc.py", 5, "suppression", "major") in suppressions
    assert ("test_calc.py", 6, "suppression", "major") in suppressions
    skip = next(f for f in result.findings if f.path == "test_calc.py")
    assert skip.message == (
        "`@pytest.mark.skip` (line 6, added by this change) skips a test or lets it fail: a "
        "suppression the change adds is a finding until a person waives it at the gate"
    )
