"""Missing, hanging, crashing and babbling tools: skipped or error, never a quiet pass."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.sensors.support import (
    MYPY_CONFIG,
    RUFF_CONFIG,
    UNFORMATTED,
    fake_tool,
    make_workspace,
    project_manifest,
    run_one,
)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return make_workspace(tmp_path / "ws", {"pyproject.toml": RUFF_CONFIG, "a.py": UNFORMATTED})


def test_a_missing_tool_is_skipped_with_its_reason(ws: Path, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    result = run_one(ws, ["a.py"], "linter", settings={"tool_path": str(tmp_path / "empty")})
    assert (result.status, result.reason, result.findings) == (
        "skipped",
        "ruff not found on PATH",
        (),
    )
    assert not result.blocking


def test_a_missing_required_tool_blocks(ws: Path, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    manifest = project_manifest("linter", runner={"required": True})
    result = run_one(ws, ["a.py"], manifest, settings={"tool_path": str(tmp_path / "empty")})
    assert (result.status, result.reason) == ("skipped", "ruff not found on PATH")
    assert [(f.severity, f.message) for f in result.findings] == [
        ("major", "could not verify: ruff not found on PATH")
    ]


def test_a_hanging_tool_is_an_error_after_the_timeout_and_its_whole_group_is_killed(
    ws: Path, tmp_path: Path
) -> None:
    pid_file = tmp_path / "child.pid"
    bin_dir = tmp_path / "bin"
    fake_tool(
        bin_dir,
        "ruff",
        (
            "import subprocess, sys, time\n"
            f"child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
            f"open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
            "time.sleep(60)\n"
        ),
    )
    started = time.monotonic()
    result = run_one(
        ws, ["a.py"], "linter", settings={"tool_path": str(bin_dir), "timeout_seconds": 1}
    )
    assert time.monotonic() - started < 10
    assert (result.status, result.reason) == ("error", "ruff timed out after 1s")
    assert [f.message for f in result.findings] == ["could not verify: ruff timed out after 1s"]
    assert not _alive(int(pid_file.read_text()))


def test_a_background_child_does_not_outlive_a_tool_that_exited_normally(
    ws: Path, tmp_path: Path
) -> None:
    pid_file = tmp_path / "child.pid"
    fake_tool(
        tmp_path / "bin",
        "ruff",
        (
            "import subprocess, sys\n"
            "child = subprocess.Popen(\n"
            "    [sys.executable, '-c', 'import time; time.sleep(60)'],\n"
            "    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,\n"
            ")\n"
            f"open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
            "print('[]')\n"
        ),
    )
    result = run_one(ws, ["a.py"], "linter", settings={"tool_path": str(tmp_path / "bin")})
    assert result.status == "passed"
    assert not _alive(int(pid_file.read_text()))


def _alive(pid: int) -> bool:
    """Running, as opposed to gone or a zombie waiting for a reaper (PID 1 in a container)."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return False
        if state in ("Z", "X"):
            return False
        time.sleep(0.05)
    return True


def test_a_crashing_tool_is_an_error(ws: Path, tmp_path: Path) -> None:
    fake_tool(
        tmp_path / "bin",
        "ruff",
        "import sys\nif '--version' in sys.argv: print('ruff 9.9')\n"
        "else: sys.stderr.write('panic: boom\\n'); sys.exit(101)\n",
    )
    result = run_one(ws, ["a.py"], "formatter", settings={"tool_path": str(tmp_path / "bin")})
    assert (result.status, result.reason) == ("error", "ruff format exited 101: panic: boom")
    assert result.blocking


def test_unreadable_tool_output_is_an_error(ws: Path, tmp_path: Path) -> None:
    fake_tool(tmp_path / "bin", "ruff", "print('all good, trust me')\n")
    result = run_one(ws, ["a.py"], "linter", settings={"tool_path": str(tmp_path / "bin")})
    assert result.status == "error"
    assert result.reason.startswith("unreadable ruff check output (expected JSON): ")
    assert result.blocking


def test_an_error_is_not_cached_so_the_next_run_checks_again(ws: Path, tmp_path: Path) -> None:
    fake_tool(tmp_path / "bin", "ruff", "print('garbage')\n")
    first = run_one(ws, ["a.py"], "linter", settings={"tool_path": str(tmp_path / "bin")})
    again = run_one(ws, ["a.py"], "linter")
    assert (first.status, again.status) == ("error", "passed")


def test_an_old_mypy_without_json_output_is_read_from_its_text_lines(tmp_path: Path) -> None:
    ws = make_workspace(
        tmp_path / "ws", {"mypy.ini": MYPY_CONFIG, "a.py": "x: int = 'a'\n", "b.py": ""}
    )
    fake_tool(
        tmp_path / "bin",
        "mypy",
        (
            "import sys\n"
            "if '--version' in sys.argv: print('mypy 0.990'); sys.exit(0)\n"
            "if '--output' in sys.argv:\n"
            "    sys.stderr.write('mypy: error: unrecognized arguments: --output\\n')\n"
            "    sys.exit(2)\n"
            "print('a.py:1: error: Incompatible types in assignment  [assignment]')\n"
            "print('a.py:1: note: See the docs')\n"
            "print('elsewhere.py:3: error: Not claimed  [misc]')\n"
            "sys.exit(1)\n"
        ),
    )
    result = run_one(
        ws, ["a.py", "b.py"], "type-check", settings={"tool_path": str(tmp_path / "bin")}
    )
    assert result.status == "failed"
    assert [(f.path, f.line, f.rule, f.message) for f in result.findings] == [
        ("a.py", 1, "assignment", "Incompatible types in assignment [assignment]")
    ]
    assert result.tool_version == "mypy 0.990"


def test_a_sensor_without_a_built_in_runner_is_skipped(ws: Path) -> None:
    manifest = project_manifest("linter", runner={"name": "no-such-runner"})
    result = run_one(ws, ["a.py"], manifest)
    assert (result.status, result.reason) == ("skipped", "no built-in runner 'no-such-runner'")


FLOOD = """
import resource, sys
from pathlib import Path
from tests.sensors.support import run_one
result = run_one(Path(sys.argv[1]), ["a.py"], "linter", settings={"tool_path": sys.argv[2]})
peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
print(result.status, peak_mib, result.reason, sep="|")
"""


def test_a_tool_flooding_its_output_is_stopped_an_error_and_memory_stays_bounded(
    ws: Path, tmp_path: Path
) -> None:
    bin_dir = tmp_path / "bin"
    fake_tool(
        bin_dir,
        "ruff",
        "import sys\nchunk = b'x' * (1 << 20)\nwhile True:\n    sys.stdout.buffer.write(chunk)\n",
    )
    ran = subprocess.run(
        [sys.executable, "-c", FLOOD, str(ws), str(bin_dir)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).parents[2],
    )
    status, peak_mib, reason = ran.stdout.strip().splitlines()[-1].split("|")
    assert (status, reason) == (
        "error",
        "ruff printed more than 128 MiB: stopped, nothing it said read",
    )
    assert int(peak_mib) < 500, f"peak memory {peak_mib} MiB"
