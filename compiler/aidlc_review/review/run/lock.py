"""One review of a unit at a time: a file lock in the unit's engine directory."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from aidlc_review.review.inputs.paths import RecordPaths
from aidlc_review.waiting_lock import waiting_lock

DEFAULT_WAIT = 3600.0


@contextmanager
def unit_lock(
    paths: RecordPaths, progress: Callable[[str], None], wait: float = DEFAULT_WAIT
) -> Iterator[None]:
    """Hold the unit's lock; a second run waits for the first, then sees its passes."""
    paths.engine.mkdir(parents=True, exist_ok=True)
    waiting = f"waiting for another review of {paths.unit or 'the stage'} to finish"
    busy = f"{paths.lock}: another review of this unit held the lock for {wait:g}s; try again later"
    with waiting_lock(paths.lock, wait, progress, waiting, busy):
        yield
