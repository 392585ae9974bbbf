"""Coded diagnostics, read as text lines or as JSON lines: the same run of a checker reads
the same either way (mypy, the real one, prints both)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from aidlc_review.sensors.context import SensorError
from aidlc_review.sensors.format_diagnostics import (
    Diagnostic,
    coded_diagnostics,
    diagnostics_json_lines,
)

SOURCE = (
    "import json\n\n"
    "count: int = 'three'\n"
    "json.dumpz([])\n"
    "def f(x):\n    return x\n"
    "reveal_type(count)\n"
)


def _checker() -> Path:
    found = Path(sys.executable).parent / "mypy"
    if not found.is_file():
        which = shutil.which("mypy")
        if which is None:
            pytest.skip("mypy is not installed")
        found = Path(which)
    return found


def _said(tmp_path: Path, *flags: str) -> str:
    tmp_path.mkdir()
    (tmp_path / "app.py").write_text(SOURCE)
    argv = [str(_checker()), "--no-error-summary", "--show-error-codes", "--strict", *flags]
    run = subprocess.run(  # noqa: S603 - the test's own argv
        [*argv, "--cache-dir", str(tmp_path / "cache"), "--", "app.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 1, run.stderr
    return run.stdout


def test_the_text_and_the_json_lines_of_one_run_read_the_same(tmp_path: Path) -> None:
    text = coded_diagnostics(_said(tmp_path / "text"))
    lines = diagnostics_json_lines(_said(tmp_path / "json", "--output", "json"))

    def shown(hits: list[Diagnostic]) -> list[tuple[object, ...]]:
        # a note's code is in the JSON only (the text prints none after a note)
        return [(h.path, h.line, h.rule if h.level != "note" else "", h.level, h.message)
                for h in hits]  # fmt: skip

    assert shown(text) == shown(lines)
    assert {(h.line, h.rule) for h in text} >= {(3, "assignment"), (4, "attr-defined")}
    assert (7, "note") in {(h.line, h.level) for h in text}, "reveal_type is a note"


def test_a_note_right_after_an_error_on_its_line_is_that_errors_hint() -> None:
    text = (
        'a.py:3: error: Module has no attribute "dumpz"  [attr-defined]\n'
        'a.py:3: note: Did you mean "dumps"?\n'
        'a.py:7: note: Revealed type is "builtins.int"\n'
        "Found 1 error in 1 file (checked 1 source file)\n"
    )
    hits = coded_diagnostics(text)
    assert [(h.line, h.level, h.rule) for h in hits] == [
        (3, "error", "attr-defined"),
        (7, "note", None),
    ]


def test_a_json_hint_stays_apart_from_the_message_and_is_said_with_it() -> None:
    line = (
        '{"file": "a.py", "line": 2, "column": 0, "message": "Library stubs not installed",'
        ' "hint": "Hint: \\"python3 -m pip install types-requests\\"\\n  or run", '
        '"code": "import-untyped", "severity": "error"}\n'
    )
    [hit] = diagnostics_json_lines(line)
    assert hit.message == "Library stubs not installed"
    assert hit.said == (
        'Library stubs not installed (Hint: "python3 -m pip install types-requests" or run)'
    )
    assert (hit.path, hit.line, hit.rule, hit.level) == ("a.py", 2, "import-untyped", "error")


@pytest.mark.parametrize(
    ("report", "said"),
    [
        ("a.py:1: error: x\n", "unreadable report (expected JSON lines): a.py:1: error: x"),
        ('["a list"]\n', 'unreadable report (expected a diagnostic): ["a list"]'),
    ],
)
def test_a_report_that_is_not_json_lines_of_diagnostics_could_not_be_verified(
    report: str, said: str
) -> None:
    with pytest.raises(SensorError) as raised:
        diagnostics_json_lines(report)
    assert str(raised.value) == said
