"""A parser per report format: each reads the real tools' output into hits at their file and
line, and an unreadable report is an error, never a pass."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from aidlc_review.sensors.context import SensorError
from aidlc_review.sensors.formats import (
    UNFORMATTED,
    Hit,
    UnreadableReport,
    gnu_text,
    go_test_json,
    ruff_json,
    would_reformat,
)

GO_VET = """\
# example.com/orders/svc
# [example.com/orders/svc]
svc/total.go:15:2: self-assignment of sum to sum
vet: svc/other.go:3:1: unreachable code
"""


def test_gnu_diagnostics_are_read_from_compilers_and_checkers() -> None:
    text = GO_VET + "src/a.c:4: warning: unused variable 'x'\nmake: *** [all] Error 1\n"
    assert gnu_text(text) == [
        Hit("svc/total.go", 15, None, "self-assignment of sum to sum", "error"),
        Hit("svc/other.go", 3, None, "unreachable code", "error"),
        Hit("src/a.c", 4, None, "unused variable 'x'", "warning"),
    ]


def events(*items: dict) -> str:
    return "".join(json.dumps(item) + "\n" for item in items)


def test_a_failed_go_test_is_a_hit_at_the_line_its_output_names(tmp_path: Path) -> None:
    report = tmp_path / "report"
    pkg = "example.com/orders/svc"
    report.write_text(
        events(
            {"Action": "run", "Package": pkg, "Test": "TestTotal"},
            {"Action": "output", "Package": pkg, "Test": "TestTotal", "Output": "=== RUN\n"},
            {"Action": "output", "Package": pkg, "Test": "TestTotal",
             "Output": "    total_test.go:7: Total = 5, want 6\n"},
            {"Action": "fail", "Package": pkg, "Test": "TestTotal"},
            {"Action": "pass", "Package": pkg, "Test": "TestOther"},
            {"Action": "fail", "Package": pkg},
        )
    )  # fmt: skip
    assert go_test_json(report) == [
        Hit(f"{pkg}/total_test.go", 7, "TestTotal", "Total = 5, want 6", "error")
    ]


def test_a_go_package_that_fails_to_build_is_a_hit_at_its_first_diagnostic(tmp_path: Path):
    report = tmp_path / "report"
    target = "example.com/orders/svc [example.com/orders/svc.test]"
    report.write_text(
        events(
            {"ImportPath": target, "Action": "build-output", "Output": "# orders/svc\n"},
            {"ImportPath": target, "Action": "build-output",
             "Output": "svc/total.go:12:27: undefined: discount\n"},
            {"ImportPath": target, "Action": "build-fail"},
            {"Action": "fail", "Package": "example.com/orders/svc", "FailedBuild": target},
        )
    )  # fmt: skip
    assert go_test_json(report) == [
        Hit("svc/total.go", 12, "build-failed", "undefined: discount", "error")
    ]


def test_a_torn_test2json_stream_is_an_error(tmp_path: Path) -> None:
    report = tmp_path / "report"
    report.write_text('{"Action": "run", "Package": "p"}\n{"Action": "fa')
    with pytest.raises(SensorError, match="report:2: not a test2json event"):
        go_test_json(report)


# ruff's JSON and a formatter's words, read from what the venv's own tools print
BIN = Path(sys.executable).parent


def _tool(name: str) -> Path:
    path = BIN / name
    if not path.is_file():
        pytest.skip(f"{name} is not installed beside the interpreter")
    return path


def _run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False)  # noqa: S603


SOURCE = 'import os\npassword = "hunter2secret"\n'


def test_ruff_check_json_is_read_into_hits_at_their_file_and_line_with_code_and_rule_page(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.py").write_text(SOURCE)
    argv = [str(_tool("ruff")), "check", "--isolated", "--select", "F401,S105"]
    run = _run([*argv, "--output-format", "json", "--no-cache", "--exit-zero", "a.py"], tmp_path)
    unused, password = ruff_json(run.stdout)
    assert (unused.path, unused.line, unused.rule, unused.level) == (
        str(tmp_path / "a.py"), 1, "F401", "error"
    )  # fmt: skip
    assert unused.message.endswith(" (https://docs.astral.sh/ruff/rules/unused-import)")
    assert "`os`" in unused.message
    assert (password.line, password.rule) == (2, "S105")
    # the span is what the rule points at: here the literal, 1-based, end column exclusive
    assert password.span is not None
    row, column, end_row, end_column = password.span
    assert SOURCE.splitlines()[row - 1][column - 1 : end_column - 1] == '"hunter2secret"'
    assert end_row == row


def test_a_file_ruff_cannot_parse_is_a_hit_whatever_its_code(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text("def (:\n")
    run = _run(
        [str(_tool("ruff")), "check", "--isolated", "--output-format", "json", "--no-cache",
         "--exit-zero", "broken.py"],
        tmp_path,
    )  # fmt: skip
    hits = ruff_json(run.stdout)
    assert hits and {hit.path for hit in hits} == {str(tmp_path / "broken.py")}
    assert all(hit.line == 1 or hit.line == 2 for hit in hits)
    assert all(hit.rule and hit.level == "error" for hit in hits)
    assert all("(https://" not in hit.message for hit in hits)  # ruff links no page for it


def test_ruff_format_json_names_the_file_it_would_change_at_its_first_changed_line(
    tmp_path: Path,
) -> None:
    (tmp_path / "ugly.py").write_text("import os\nx=1\n")
    (tmp_path / "fine.py").write_text("x = 1\n")
    run = _run(
        [str(_tool("ruff")), "format", "--check", "--isolated", "--output-format", "json",
         "--no-cache", "ugly.py", "fine.py"],
        tmp_path,
    )  # fmt: skip
    assert run.returncode == 1
    [hit] = ruff_json(run.stdout)
    assert (hit.path, hit.line, hit.rule, hit.level) == (
        str(tmp_path / "ugly.py"), 2, "unformatted", "unformatted"
    )  # fmt: skip


def test_ruff_with_nothing_to_say_prints_an_empty_list_read_as_no_hit(tmp_path: Path) -> None:
    (tmp_path / "fine.py").write_text("x = 1\n")
    run = _run(
        [str(_tool("ruff")), "check", "--isolated", "--output-format", "json", "--no-cache",
         "fine.py"],
        tmp_path,
    )  # fmt: skip
    assert (run.returncode, ruff_json(run.stdout)) == (0, [])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("all good, trust me", "unreadable ruff output (expected JSON): "),
        ("", "unreadable ruff output (expected JSON): "),
        ('{"code": "F401"}', "unreadable ruff output (expected a JSON list of diagnostics): "),
        ("[1, 2]", "unreadable ruff output (expected a JSON list of diagnostics): "),
    ],
)
def test_unreadable_ruff_output_is_an_error_saying_what_was_expected(
    text: str, expected: str
) -> None:
    with pytest.raises(UnreadableReport) as raised:
        ruff_json(text)
    assert str(raised.value).startswith(expected)
    # the runner names the command that wrote it
    assert str(raised.value.by("ruff check")).startswith(expected.replace("ruff", "ruff check"))


def test_black_check_diff_names_each_file_it_would_reformat_at_its_first_changed_line(
    tmp_path: Path,
) -> None:
    (tmp_path / "ugly.py").write_text("import os\n\n\n\nx=1\ny = 2\n")
    (tmp_path / "fine.py").write_text("x = 1\n")
    run = subprocess.run(  # noqa: S603
        [str(_tool("black")), "--check", "--diff", "ugly.py", "fine.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "BLACK_CACHE_DIR": str(tmp_path / "cache")},
    )
    assert run.returncode == 1
    assert would_reformat(f"{run.stdout}\n{run.stderr}") == [
        Hit("ugly.py", 3, None, UNFORMATTED, "unformatted")  # the blank lines black removes
    ]
    # the diff alone names no file: the words do
    assert would_reformat(run.stdout) == []


def test_a_file_a_formatter_cannot_format_is_a_hit_saying_why() -> None:
    said = "error: cannot format src/a.py: Cannot parse: 1:4: def (:\nwould reformat src/b.py\n"
    assert would_reformat(said) == [
        Hit("src/b.py", None, None, UNFORMATTED, "unformatted"),
        Hit("src/a.py", None, None, "Cannot parse: 1:4: def (:", "error"),
    ]


def test_a_file_black_cannot_parse_is_a_hit_at_the_line_it_names_without_its_source(
    tmp_path: Path,
) -> None:
    (tmp_path / "broken.py").write_text("x = 1\nprint 'secret-ish'\n")
    run = subprocess.run(  # noqa: S603
        [str(_tool("black")), "--check", "--diff", "broken.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "BLACK_CACHE_DIR": str(tmp_path / "cache")},
    )
    assert run.returncode == 123
    [hit] = would_reformat(f"{run.stdout}\n{run.stderr}")
    assert (hit.path, hit.line, hit.level) == ("broken.py", 2, "error")
    assert "secret-ish" not in hit.message
