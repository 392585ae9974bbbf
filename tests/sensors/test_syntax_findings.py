"""linter: a claimed ``.py`` file CPython cannot compile is a major finding, ruff or no ruff."""

from __future__ import annotations

from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from aidlc_review.sensors.python_compile import CompileFailure, compile_failure
from tests.review import workspace as review_ws
from tests.sensors.support import (
    RUFF_CONFIG,
    located,
    make_workspace,
    project_manifest,
    run_one,
)

# CPython's tokenizer stops at 200 open brackets; ruff's parser takes 5000
DEEP = '"""Deep."""\n\nX = ' + "(" * 5000 + "1" + ")" * 5000 + "\n"
TOO_DEEP = "does not compile: too many nested parentheses"
# the wording changed in Python 3.12
NULL_BYTES = {
    "does not compile: source code string cannot contain null bytes",
    "does not compile: source code cannot contain null bytes",
}
E_ONLY = RUFF_CONFIG.replace("['E', 'F']", "['E']")


def test_a_module_cpython_cannot_parse_makes_the_review_not_ready(tmp_path: Path, capsys) -> None:
    ws = review_ws.make_workspace(tmp_path / "ws", {"src/orders/deep.py": DEEP})

    assert main(review_ws.review_args(ws)) == 1

    [first] = review_ws.findings_doc(ws)["passes"]
    assert first["verdict"] == "NOT-READY"
    assert [
        (f["check"], f["severity"], f["path"], f["location"], f["rule"], f["finding"])
        for f in first["findings"]
        if f["severity"] != "minor"
    ] == [("linter", "major", "src/orders/deep.py", "3", "syntax-error", TOO_DEEP)]
    out = capsys.readouterr().out
    assert "verdict: NOT-READY (attempt 1, 1 pass(es))" in out
    assert f"CR-002 major    src/orders/deep.py:3: {TOO_DEEP}\n" in out


def test_a_null_byte_ruff_accepts_is_a_major_finding_at_its_line(tmp_path: Path) -> None:
    ws = make_workspace(
        tmp_path / "ws", {"pyproject.toml": RUFF_CONFIG, "a.py": "x = 1\ny = 2  # a\0b\n"}
    )
    result = run_one(ws, ["a.py"], "linter")
    assert (result.status, located(result)) == ("failed", [("a.py", 2, "syntax-error", "major")])
    assert result.findings[0].message in NULL_BYTES
    assert result.blocking


def test_a_syntax_error_ruff_reports_is_reported_once(tmp_path: Path) -> None:
    ws = make_workspace(
        tmp_path / "ws",
        {"pyproject.toml": RUFF_CONFIG, "bad.py": 'x = 1\ny = "abc\n', "deep.py": DEEP},
    )
    result = run_one(ws, ["bad.py", "deep.py"], "linter")
    assert located(result) == [
        ("bad.py", 2, "invalid-syntax", "critical"),
        ("deep.py", 3, "E501", "minor"),
        ("deep.py", 3, "syntax-error", "major"),
    ]
    assert result.findings[0].message == "invalid-syntax missing closing quote in string literal"


@pytest.mark.parametrize(
    ("config", "expected", "message"),
    [
        (
            E_ONLY,
            ("m.py", 2, "syntax-error", "major"),
            "does not compile: 'return' outside function",
        ),
        (
            RUFF_CONFIG,
            ("m.py", 2, "F706", "major"),
            "F706 `return` statement outside of a function/method"
            " (https://docs.astral.sh/ruff/rules/return-outside-function)",
        ),
    ],
    ids=["ruff-says-nothing", "ruff-says-F706"],
)
def test_a_statement_cpython_refuses_at_compile_time_is_one_finding(
    tmp_path: Path, config: str, expected: tuple, message: str
) -> None:
    ws = make_workspace(tmp_path / "ws", {"pyproject.toml": config, "m.py": "x = 1\nreturn x\n"})
    result = run_one(ws, ["m.py"], "linter")
    assert located(result) == [expected]
    assert [f.message for f in result.findings] == [message]


def test_a_cached_clean_result_does_not_hide_a_new_compile_failure(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", {"pyproject.toml": E_ONLY, "m.py": "x = 1\n"})

    def checked() -> tuple[list[str], list[tuple]]:
        said: list[str] = []
        result = run_one(ws, ["m.py"], "linter", progress=said.append)
        return [m for m in said if "checking" in m], located(result)

    assert checked() == (["linter: checking 1 file(s) with ruff"], [])
    assert checked() == ([], [])
    (ws / "m.py").write_text("x = 1\n" + DEEP)
    failing = [("m.py", 4, "E501", "minor"), ("m.py", 4, "syntax-error", "major")]
    assert checked() == (["linter: checking 1 file(s) with ruff"], failing)
    assert checked() == ([], failing)  # from the cache, finding and all


def test_the_finding_keeps_its_fingerprint_when_its_line_moves(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", {"pyproject.toml": E_ONLY, "m.py": DEEP})
    before = run_one(ws, ["m.py"], "linter").findings[-1]
    (ws / "m.py").write_text("# moved\n\n" + DEEP)
    after = run_one(ws, ["m.py"], "linter").findings[-1]
    assert (before.rule, before.line, after.line) == ("syntax-error", 3, 5)
    assert before.fingerprint == after.fingerprint


def test_an_advisory_linter_reports_the_failure_without_blocking(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", {"pyproject.toml": E_ONLY, "m.py": DEEP})
    manifest = project_manifest("linter", default_severity="advisory")
    result = run_one(ws, ["m.py"], manifest)
    assert located(result) == [("m.py", 3, "E501", "minor"), ("m.py", 3, "syntax-error", "minor")]
    assert not result.blocking


@pytest.mark.filterwarnings("error")  # a warning turned into an error must not fail the file
def test_syntax_warnings_are_neither_findings_nor_printed(tmp_path: Path, capfd) -> None:
    source = 'x = 1 is 1\ny = "\\d"\n'
    assert compile_failure(source.encode(), "m.py") is None
    ws = make_workspace(tmp_path / "ws", {"pyproject.toml": E_ONLY, "m.py": source})
    assert run_one(ws, ["m.py"], "linter").status == "passed"
    assert "Warning" not in "".join(capfd.readouterr())


def test_stub_files_are_left_to_ruff(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", {"pyproject.toml": E_ONLY, "m.pyi": "return 1\n"})
    assert run_one(ws, ["m.pyi"], "linter").findings == ()


def test_a_reason_that_quotes_a_line_number_is_identified_without_it() -> None:
    failure = compile_failure(b"x = [\n1)\n", "m.py")
    reason = "closing parenthesis ')' does not match opening parenthesis '[' on line 1"
    assert failure == CompileFailure(2, reason)
    assert failure.identity == reason.replace("line 1", "line N")


def test_a_parser_that_runs_out_of_stack_or_memory_is_a_failure_not_a_crash() -> None:
    failure = compile_failure(b"x = " + b"-" * 100_000 + b"1\n", "m.py")
    assert failure is not None and failure.reason


def test_a_coding_cookie_is_honoured_and_bad_bytes_are_a_failure() -> None:
    latin = b"# -*- coding: latin-1 -*-\nx = '\xe9'\n"
    assert compile_failure(latin, "m.py") is None
    failure = compile_failure(b"x = '\xe9'\n", "m.py")
    assert failure is not None and failure.line == 1
    assert failure.reason.startswith("(unicode error) 'utf-8' codec can't decode byte 0xe9")
