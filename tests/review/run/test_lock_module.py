"""Spec of ``review.run.lock``: one review per unit at a time, across processes and threads."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from aidlc_review.errors import EXIT_INVALID, LockBusy
from aidlc_review.review.inputs.paths import RecordPaths
from aidlc_review.review.run.lock import unit_lock

UNIT = "u1-orders"
# A review in another process: holds the unit's lock, says so, and lets go when told to
# (or after ``hold`` seconds), leaving a mark just before it does.
HOLDER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from aidlc_review.review.inputs.paths import RecordPaths
    from aidlc_review.review.run.lock import unit_lock

    workspace, unit, signals = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
    hold = float(sys.argv[4])
    paths = RecordPaths.resolve(workspace, unit or None)
    with unit_lock(paths, lambda _: None, wait=0):
        (signals / "held").touch()
        end = time.monotonic() + hold
        while time.monotonic() < end and not (signals / "release").exists():
            time.sleep(0.01)
        (signals / "releasing").touch()
    """
)


class Holder:
    def __init__(self, tmp_path: Path, workspace: Path, unit: str | None, hold: float = 30.0):
        self.signals = tmp_path / f"signals-{unit}"
        self.signals.mkdir()
        script = tmp_path / "holder.py"
        script.write_text(HOLDER)
        argv = [sys.executable, str(script), str(workspace), unit or "", str(self.signals)]
        self.process = subprocess.Popen([*argv, str(hold)])
        deadline = time.monotonic() + 10
        while not (self.signals / "held").exists():
            assert self.process.poll() is None, "the holder died before taking the lock"
            assert time.monotonic() < deadline, "the holder never took the lock"
            time.sleep(0.01)

    def released(self) -> bool:
        return (self.signals / "releasing").exists()

    def release(self) -> None:
        (self.signals / "release").touch()
        assert self.process.wait(timeout=10) == 0


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


def test_the_lock_lives_in_the_units_engine_directory_made_on_first_use(workspace: Path) -> None:
    paths = RecordPaths.resolve(workspace, UNIT)
    assert not paths.engine.exists()
    with unit_lock(paths, lambda _: None):
        assert paths.lock == workspace / "aidlc-docs/.aidlc-engine/code-review" / UNIT / "unit.lock"
        assert paths.lock.is_file()


def test_an_uncontended_lock_is_taken_without_a_word(workspace: Path) -> None:
    said: list[str] = []
    with unit_lock(RecordPaths.resolve(workspace, UNIT), said.append):
        pass
    assert said == []


def test_a_second_review_waits_for_the_first_and_says_so_once(
    tmp_path: Path, workspace: Path
) -> None:
    first = Holder(tmp_path, workspace, UNIT, hold=0.5)
    said: list[str] = []
    with unit_lock(RecordPaths.resolve(workspace, UNIT), said.append, wait=20):
        assert first.released()  # in only once the first let go
    assert said == [f"waiting for another review of {UNIT} to finish"]
    assert first.process.wait(timeout=10) == 0


def test_a_lock_held_past_the_wait_is_refused_as_busy_exit_2(
    tmp_path: Path, workspace: Path
) -> None:
    first = Holder(tmp_path, workspace, UNIT)
    paths = RecordPaths.resolve(workspace, UNIT)
    said: list[str] = []
    entered = False
    try:
        with pytest.raises(LockBusy) as refused, unit_lock(paths, said.append, wait=0.3):
            entered = True
    finally:
        first.release()
    assert not entered
    assert str(refused.value) == (
        f"{paths.lock}: another review of this unit held the lock for 0.3s; try again later"
    )
    assert refused.value.exit_code == EXIT_INVALID
    assert said == [f"waiting for another review of {UNIT} to finish"]


def test_a_stage_level_review_waits_on_the_stages_own_lock(tmp_path: Path, workspace: Path) -> None:
    first = Holder(tmp_path, workspace, None)
    paths = RecordPaths.resolve(workspace, None)
    said: list[str] = []
    try:
        with pytest.raises(LockBusy), unit_lock(paths, said.append, wait=0.1):
            pass
    finally:
        first.release()
    assert paths.lock == workspace / "aidlc-docs/.aidlc-engine/code-review/_stage/unit.lock"
    assert said == ["waiting for another review of the stage to finish"]


def test_reviews_of_other_units_do_not_wait_for_each_other(tmp_path: Path, workspace: Path) -> None:
    first = Holder(tmp_path, workspace, UNIT)
    said: list[str] = []
    try:
        with unit_lock(RecordPaths.resolve(workspace, "u2-billing"), said.append, wait=0):
            pass
        with unit_lock(RecordPaths.resolve(workspace, None), said.append, wait=0):
            pass
    finally:
        first.release()
    assert said == []


def test_a_second_holder_in_the_same_process_is_held_off_too(workspace: Path) -> None:
    paths = RecordPaths.resolve(workspace, UNIT)
    with unit_lock(paths, lambda _: None), pytest.raises(LockBusy):
        with unit_lock(paths, lambda _: None, wait=0.1):
            pass


def test_the_lock_is_let_go_when_the_review_inside_it_fails(workspace: Path) -> None:
    paths = RecordPaths.resolve(workspace, UNIT)
    with pytest.raises(RuntimeError, match="sensor crashed"), unit_lock(paths, lambda _: None):
        raise RuntimeError("sensor crashed")
    said: list[str] = []
    with unit_lock(paths, said.append, wait=0):
        pass
    assert said == []


def test_reviews_racing_in_threads_run_one_after_another(workspace: Path) -> None:
    paths = RecordPaths.resolve(workspace, UNIT)
    counter = workspace / "passes.txt"
    counter.write_text("0")
    inside: list[int] = []
    overlaps: list[int] = []

    def review() -> None:
        for _ in range(5):
            with unit_lock(paths, lambda _: None, wait=20):
                inside.append(1)
                if len(inside) > 1:
                    overlaps.append(len(inside))
                seen = int(counter.read_text())
                time.sleep(0.002)  # a read-modify-write that interleaving would break
                counter.write_text(str(seen + 1))
                inside.pop()

    threads = [threading.Thread(target=review) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert overlaps == []
    assert counter.read_text() == "20"
