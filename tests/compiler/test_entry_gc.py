"""The console script's garbage-collector settings: a short in-memory command runs without
the collector, a command that runs agents or sensors keeps it, and ``main`` called
in-process (a library caller, these tests) never touches it."""

from __future__ import annotations

import gc
import subprocess
import sys
from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from tests.compiler.harness_factory import write_harness

PROBE = """
import atexit, gc, sys
atexit.register(lambda: print(gc.isenabled(), gc.get_freeze_count() > 0))
sys.argv = ["aidlc-review", *sys.argv[1:]]
from aidlc_review.cli.main import entry
entry()
"""


def _exit_state(*argv: str) -> str:
    """(collector enabled, heap frozen) as the process left them, printed at exit."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, check=False
    )
    return done.stdout.splitlines()[-1]  # after whatever the command printed


def test_a_compile_runs_without_the_collector_and_freezes_the_heap_before_exit(
    tmp_path: Path,
) -> None:
    root = write_harness(tmp_path / "h")
    assert _exit_state("compile", "--harness", str(root)) == "False True"


@pytest.mark.parametrize("argv", [["review", "--help"], ["bolt", "--help"], ["--version"]])
def test_other_commands_keep_the_collector_and_still_freeze_before_exit(argv) -> None:
    assert _exit_state(*argv) == "True True"


def test_main_in_process_leaves_the_collector_as_it_found_it(tmp_path: Path) -> None:
    root = write_harness(tmp_path / "h")
    assert gc.isenabled()
    assert main(["compile", "--harness", str(root)]) == 0
    assert gc.isenabled() and gc.get_freeze_count() == 0
