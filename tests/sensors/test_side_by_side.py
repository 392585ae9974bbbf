"""``sensors.api``: the static sensors run two at a time, the sensors that run the project's
code run alone after them, and the results come back in manifest order whatever finished
first. Concurrency is shown by rendezvous (each side waits for the other), never by time."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from aidlc_review.sensors import api, tools
from aidlc_review.sensors.registry import RUNS_PROJECT_CODE
from tests.sensors.support import (
    FORMATTED,
    MYPY_CONFIG,
    RUFF_CONFIG,
    fake_tool,
    make_workspace,
    project_manifest,
)

ROOT = Path(__file__).resolve().parents[2]
# seconds a rendezvous waits before it reports that the other side never came: generous, so
# a loaded machine (load 7 on 2 cores timed out at 20) is not read as a hang; the tools an
# interrupted run must kill sleep far longer (TOOLS_SLEEP), so waiting cannot pass for killing
WAIT = 90
TOOLS_SLEEP = 600


def test_coverage_is_the_runner_that_runs_the_projects_code() -> None:
    assert RUNS_PROJECT_CODE == {"coverage"}


def test_two_static_sensors_run_at_once_and_the_projects_tests_run_alone_after() -> None:
    manifests = [project_manifest(n) for n in ("formatter", "coverage", "linter", "type-check")]
    both_static = threading.Barrier(2, timeout=WAIT)  # broken unless two run together
    running: set[str] = set()
    seen_beside_coverage: list[set[str]] = []

    def run_one(manifest):  # noqa: ANN001, ANN202
        if manifest.id == "coverage":
            seen_beside_coverage.append(set(running))
        else:
            running.add(manifest.id)
            if manifest.id in ("formatter", "linter"):
                both_static.wait()
            running.discard(manifest.id)
        return manifest.id, None, False

    runs = api._run_all(manifests, run_one)
    assert [name for name, _, _ in runs] == ["formatter", "coverage", "linter", "type-check"]
    assert seen_beside_coverage == [set()]


def test_the_first_static_sensor_starts_its_tool_before_the_others_begin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The others' Python work (a secret scan loading its plugins) must not slow the start
    of the longest tool; once it runs, they run beside it."""
    monkeypatch.setattr(api, "FIRST_TOOL_WAIT", WAIT)  # a loaded machine starts tools slowly
    manifests = [project_manifest(n) for n in ("type-check", "formatter", "linter")]
    order: list[str] = []
    both = threading.Barrier(2, timeout=WAIT)  # the first's tool and another sensor at once
    forget = tools.on_next_start(lambda: order.append("the first's tool started"))

    def run_one(manifest):  # noqa: ANN001, ANN202
        order.append(f"{manifest.id} begins")
        if manifest.id == "type-check":
            tools.run_tool([sys.executable, "-c", ""], tmp_path, WAIT, started=both.wait)
        elif manifest.id == "formatter":
            both.wait()
        return manifest.id, None, False

    try:
        api._run_all(manifests, run_one)
    finally:
        forget()
    assert order[:3] == ["type-check begins", "the first's tool started", "formatter begins"]


def test_a_first_sensor_that_starts_no_tool_lets_the_others_begin_as_it_ends(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(api, "FIRST_TOOL_WAIT", WAIT)
    manifests = [project_manifest(n) for n in ("findings-schema", "formatter")]
    order: list[str] = []

    def run_one(manifest):  # noqa: ANN001, ANN202
        order.append(f"{manifest.id} begins")
        time.sleep(0.05 if manifest.id == "findings-schema" else 0)
        order.append(f"{manifest.id} ends")
        return manifest.id, None, False

    api._run_all(manifests, run_one)
    assert order == [
        "findings-schema begins",
        "findings-schema ends",
        "formatter begins",
        "formatter ends",
    ]


def test_a_sensor_that_raises_raises_from_the_pool_too() -> None:
    def run_one(manifest):  # noqa: ANN001, ANN202
        if manifest.id == "linter":
            raise RuntimeError("linter broke")
        return manifest.id, None, False

    with pytest.raises(RuntimeError, match="linter broke"):
        api._run_all([project_manifest("formatter"), project_manifest("linter")], run_one)


def test_real_tools_meet_each_other_and_share_one_result_cache(tmp_path: Path) -> None:
    """ruff waits for mypy to start and mypy for ruff to finish: one after the other, the
    first would wait in vain and fail. Both write to one on-disk cache from two threads."""
    ws = make_workspace(
        tmp_path / "ws", {"pyproject.toml": RUFF_CONFIG, "mypy.ini": MYPY_CONFIG, "a.py": FORMATTED}
    )
    started, finished = tmp_path / "mypy-started", tmp_path / "ruff-finished"
    wait_for = (
        "import os, sys, time\n"
        "def wait_for(path):\n"
        f"    deadline = time.monotonic() + {WAIT}\n"
        "    while not os.path.exists(path):\n"
        "        if time.monotonic() > deadline:\n"
        "            sys.exit(f'{path} never appeared')\n"
        "        time.sleep(0.05)\n"
        "if '--version' in sys.argv:\n"
        "    print(os.path.basename(sys.argv[0]), '9.9.9')\n"
        "    sys.exit(0)\n"
    )
    bin_dir = tmp_path / "bin"
    fake_tool(
        bin_dir,
        "ruff",
        f"{wait_for}wait_for({str(started)!r})\n"
        f"open({str(finished)!r}, 'w').close()\nprint('[]')\n",
    )
    fake_tool(
        bin_dir,
        "mypy",
        f"{wait_for}open({str(started)!r}, 'w').close()\nwait_for({str(finished)!r})\n",
    )
    results = api.run_sensors(
        ws,
        ["a.py"],
        [project_manifest("linter"), project_manifest("type-check")],
        settings={"tool_path": str(bin_dir)},
        cache_dir=tmp_path / "cache",
    )
    assert [(r.name, r.status, r.reason) for r in results] == [
        ("linter", "passed", None),
        ("type-check", "passed", None),
    ]


INTERRUPTED_RUN = """
import sys
from pathlib import Path
from aidlc_review.sensors import run_sensors
from tests.sensors.support import project_manifest
ws, bin_dir, cache = (Path(a) for a in sys.argv[1:4])
manifests = [project_manifest("linter"), project_manifest("type-check")]
run_sensors(ws, ["a.py"], manifests, settings={"tool_path": str(bin_dir)}, cache_dir=cache)
"""


def test_ctrl_c_stops_the_tools_of_both_threads(tmp_path: Path) -> None:
    """The tools run in their own sessions, so the terminal's SIGINT reaches only the
    review: it must kill what both threads started, not wait for them."""
    ws = make_workspace(
        tmp_path / "ws", {"pyproject.toml": RUFF_CONFIG, "mypy.ini": MYPY_CONFIG, "a.py": FORMATTED}
    )
    bin_dir = tmp_path / "bin"
    for tool in ("ruff", "mypy"):
        fake_tool(
            bin_dir,
            tool,
            "import os, sys, time\n"
            "if '--version' in sys.argv:\n"
            f"    print('{tool} 9.9.9')\n"
            "    sys.exit(0)\n"
            f"open({str(tmp_path / tool)!r} + '.pid', 'w').write(str(os.getpid()))\n"
            f"time.sleep({TOOLS_SLEEP})\n",
        )
    run = subprocess.Popen(
        [sys.executable, "-c", INTERRUPTED_RUN, str(ws), str(bin_dir), str(tmp_path / "cache")],
        cwd=ROOT,
        stderr=subprocess.PIPE,
        text=True,
    )
    pids = [tmp_path / "ruff.pid", tmp_path / "mypy.pid"]
    try:
        _wait_until(lambda: all(p.is_file() and p.read_text() for p in pids))
        tools = [int(pid.read_text()) for pid in pids]
        run.send_signal(signal.SIGINT)
        _, err = run.communicate(timeout=WAIT)  # long before the tools' ten minutes
    finally:
        run.kill()
        for pid in pids:  # a failed run leaves them: never leave them to the next test
            with contextlib.suppress(ValueError, OSError):
                os.killpg(int(pid.read_text()), signal.SIGKILL)
    assert "KeyboardInterrupt" in err
    _wait_until(lambda: not any(_alive(tool) for tool in tools))


def _wait_until(condition) -> None:  # noqa: ANN001
    deadline = time.monotonic() + WAIT
    while not condition():
        assert time.monotonic() < deadline, "gave up waiting"
        time.sleep(0.05)


def _alive(pid: int) -> bool:
    """Running, as opposed to gone or a zombie waiting for its reaper."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state not in ("Z", "X")
