"""secret-scan has a time limit: a file it did not finish is "could not verify", never a pass.

The slow input is real: detect-secrets' keyword detector takes seconds on a few kilobytes
of ``secret_password_token_`` repeated (5 KB: about 3 s; 9 KB: well over 10 s).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from tests.sensors.support import make_workspace, project_manifest, run_one

AWS_KEY = "AKIAZ7Q3T5W9X2M4N6P8"
SLOW_LINE = "secret_password_token_" * 400 + "\n"


def limited(seconds: object) -> object:
    options = {"baseline": ".secrets.baseline", "max_scan_seconds": seconds}
    return project_manifest("secret-scan", runner={"options": options})


def unchecked(result: object) -> list[tuple[str, str | None, str, str]]:
    return [
        (f.path, f.rule, f.severity, f.message)
        for f in result.findings  # type: ignore[attr-defined]
        if f.rule == "timed-out"
    ]


def _processes() -> dict[int, tuple[int, int, bytes]]:
    """``{pid: (parent pid, start time in ticks, command line)}`` of every process."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            found[int(entry.name)] = (int(stat[1]), int(stat[19]), (entry / "cmdline").read_bytes())
        except OSError:
            continue
    return found


def own_forks() -> set[int]:
    """Processes forked from this one (same command line, started after it) that are still
    ours or were orphaned: a scan worker or its pool left behind. Other test processes'
    forks (pytest-xdist workers share a command line) are theirs, not ours."""
    me = os.getpid()
    table = _processes()
    _, started, mine = table[me]

    def ours(pid: int) -> bool:
        if table[pid][0] == 1:
            return True  # orphaned: its worker was killed and it was left running
        seen = set()
        while pid not in seen and pid in table:
            seen.add(pid)
            pid = table[pid][0]
            if pid == me:
                return True
        return False

    return {
        pid
        for pid, (_, start, cmdline) in table.items()
        if pid != me and cmdline == mine and start >= started and ours(pid)
    }


def no_forks_left(seconds: float = 10.0) -> set[int]:
    """``own_forks()`` once every killed fork is gone: a process sent SIGKILL still shows its
    command line while it exits (longer on a loaded machine: CI saw one); a fork left behind
    stays, and is returned."""
    deadline = time.monotonic() + seconds
    while (left := own_forks()) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


def test_a_file_that_keeps_the_scan_past_its_limit_is_a_blocking_could_not_verify(
    tmp_path: Path,
) -> None:
    ws = make_workspace(
        tmp_path / "ws",
        {"a_clean.py": "x = 1\n", "b_slow.py": SLOW_LINE, "c_key.py": f'K = "{AWS_KEY}"\n'},
    )
    started = time.monotonic()
    result = run_one(ws, ["a_clean.py", "b_slow.py", "c_key.py"], limited(0.5))
    elapsed = time.monotonic() - started
    assert elapsed < 5  # unbounded, b_slow.py alone takes well over 10 s
    assert result.status == "failed" and result.blocking
    message = "could not verify: secret scan exceeded 0.5 s"
    # a_clean.py was finished in time; the file it was on and the one after it were not
    assert unchecked(result) == [
        ("b_slow.py", "timed-out", "major", message),
        ("c_key.py", "timed-out", "major", message),
    ]
    assert not no_forks_left()


def test_a_limit_shorter_than_the_scan_checks_nothing_and_caches_nothing(tmp_path: Path) -> None:
    # about 0.7 s of the keyword detector's work: far beyond a 50 ms limit on any machine
    # (1 ms was not: a fast machine forked and scanned a one-line file within it)
    slow = "secret_password_token_" * 120 + "\n"
    ws = make_workspace(tmp_path / "ws", {"src/settings.py": f'AWS_KEY = "{AWS_KEY}"\n{slow}'})
    cache = tmp_path / "cache"
    result = run_one(ws, ["src/settings.py"], limited(0.05), cache_dir=cache)
    assert (result.status, result.blocking) == ("failed", True)
    assert unchecked(result) == [
        (
            "src/settings.py",
            "timed-out",
            "major",
            "could not verify: secret scan exceeded 0.05 s",
        )
    ]
    # the unfinished file was not cached as clean: with time, the same cache finds the key
    again = run_one(ws, ["src/settings.py"], "secret-scan", cache_dir=cache)
    assert [(f.path, f.rule) for f in again.findings] == [("src/settings.py", "AWS Access Key")]


def test_a_pool_scan_stopped_at_its_limit_leaves_no_process_behind(tmp_path: Path) -> None:
    slow = "secret_password_token_" * 120 + "\n"  # about 0.7 s each
    files = {f"m{i:03d}.py": slow for i in range(64)}  # 64 files: the scan uses a pool
    ws = make_workspace(tmp_path / "ws", files)
    started = time.monotonic()
    result = run_one(ws, sorted(files), limited(1))
    assert time.monotonic() - started < 6  # unbounded, about 45 s of work
    assert 0 < len(unchecked(result)) <= 64
    assert not no_forks_left()


def test_within_its_limit_the_scan_reports_what_detect_secrets_reports(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", {"src/settings.py": f'AWS_KEY = "{AWS_KEY}"\n'})
    result = run_one(ws, ["src/settings.py"], limited(30))
    assert [(f.path, f.line, f.rule) for f in result.findings] == [
        ("src/settings.py", 1, "AWS Access Key")
    ]


def test_a_limit_that_is_not_a_positive_number_is_an_error_naming_the_option(
    tmp_path: Path,
) -> None:
    ws = make_workspace(tmp_path / "ws", {"a.py": "x = 1\n"})
    for bad in ("soon", 0, -1, True):
        result = run_one(ws, ["a.py"], limited(bad))
        assert result.status == "error" and result.blocking
        assert result.reason == (
            f"runner option max_scan_seconds: must be a positive number, got {bad!r}"
        )
