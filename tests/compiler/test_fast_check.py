"""``cli.fast_check``: an up-to-date ``compile --check`` is answered before argparse is
imported; every other command line goes to the ordinary parser, which reports as always."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from aidlc_review.cli import cmd_compile
from aidlc_review.cli.fast_check import _DEFAULT_DISPLAY_ROOT, up_to_date
from aidlc_review.cli.main import main
from tests.compiler.harness_factory import edit, write_harness

B = "stages/construction/build.md"


@pytest.fixture
def stamped(tmp_path: Path) -> Path:
    root = write_harness(tmp_path / "h")
    assert main(["compile", "--harness", str(root)]) == 0
    assert main(["compile", "--harness", str(root), "--check"]) == 0  # records the stamp
    return root


HEAVY = ("argparse", "pathlib", "json", "typing", "re", "collections", "dataclasses")


def test_an_up_to_date_check_is_answered_without_argparse_pathlib_json_or_typing(
    stamped: Path,
) -> None:
    before = f"import sys\nbefore = {{m for m in {HEAVY!r} if m in sys.modules}}\n"
    probe = (
        "from aidlc_review.cli.main import main\n"
        f"code = main(['compile', '--harness', {str(stamped)!r}, '--check'])\n"
        f"print(code, [m for m in {HEAVY!r} if m in sys.modules and m not in before])\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [sys.executable, "-c", before + probe], capture_output=True, text=True, env=env
    )
    assert done.stdout == "0 []\n", done.stderr


@pytest.mark.parametrize(
    "extra",
    [
        [],
        ["--display-root", ".claude"],
        ["--display-root=.claude"],
    ],
)
def test_the_options_it_reads_are_read_as_the_parser_reads_them(stamped: Path, extra) -> None:
    assert up_to_date(["compile", "--harness", str(stamped), "--check", *extra]) == 0
    assert up_to_date(["compile", f"--harness={stamped}", *extra, "--check"]) == 0


@pytest.mark.parametrize(
    "argv",
    [
        ["compile", "--harness", "{h}"],  # not a check
        ["compile", "--harness", "{h}", "--check", "--display-root", "other"],  # other options
        ["compile", "--harness", "{h}", "--check", "--strict"],  # another stamp
        ["compile", "--harn", "{h}", "--check"],  # an abbreviation: argparse's to read
        ["compile", "--harness", "{h}", "--check", "-h"],
        ["compile", "--harness", "{h}", "--check", "--bogus"],
        ["compile", "--harness", "--check"],  # a missing value
        ["compile", "--harness", "{h}", "--harness", "{h}", "--check"],  # given twice
        ["graph", "--harness", "{h}", "--check"],
        ["compile"],
        [],
    ],
)
def test_anything_else_goes_to_the_ordinary_parser(stamped: Path, argv: list[str]) -> None:
    assert up_to_date([a.replace("{h}", str(stamped)) for a in argv]) is None


def test_a_stale_stamp_runs_the_whole_check_which_reports_the_drift(stamped, capsys) -> None:
    edit(stamped, B, "  - poc\n", "")
    assert up_to_date(["compile", "--harness", str(stamped), "--check"]) is None
    capsys.readouterr()
    assert main(["compile", "--harness", str(stamped), "--check"]) == 1
    assert '-      "poc"\n' in capsys.readouterr().out


def test_a_harness_that_cannot_be_read_is_left_to_the_ordinary_path(tmp_path, capsys) -> None:
    missing = tmp_path / "nowhere"
    assert up_to_date(["compile", "--harness", str(missing), "--check"]) is None
    assert main(["compile", "--harness", str(missing), "--check"]) == 2
    assert str(missing) in capsys.readouterr().err


def test_its_default_display_root_is_the_commands() -> None:
    assert _DEFAULT_DISPLAY_ROOT == cmd_compile.DEFAULT_DISPLAY_ROOT


def test_the_stamp_it_reads_is_the_one_the_whole_check_wrote(stamped: Path) -> None:
    out = stamped / "tools" / "data"
    assert json.loads((out / "stage-graph.json").read_text())  # outputs are there
    (out / "stage-graph.json").write_text("{}\n")
    assert up_to_date(["compile", "--harness", str(stamped), "--check"]) is None
