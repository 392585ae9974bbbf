"""One review of a unit at a time: a file lock in the unit's engine directory."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from filelock import FileLock, Timeout

from aidlc_review.errors import LockBusy
from aidlc_review.review.inputs.paths import RecordPaths

DEFAULT_WAIT = 3600.0


@contextmanager
def unit_lock(
    paths: RecordPaths, progress: Callable[[str], None], wait: float = DEFAULT_WAIT
) -> Iterator[None]:
    """Hold the unit's lock; a second run waits for the first, then sees its passes."""
    paths.engine.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(paths.lock))
    try:
        lock.acquire(timeout=0)
    except Timeout:
        progress(f"waiting for another review of {paths.unit or 'the stage'} to finish")
        try:
            lock.acquire(timeout=wait)
        except Timeout:
            raise LockBusy(
                f"{paths.lock}: another review of this unit held the lock for "
                f"{wait:g}s; try again later"
            ) from None
    try:
        yield
    finally:
        lock.release()
