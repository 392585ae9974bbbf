"""A file lock that a second run waits on: said once when it has to wait, refused with
``LockBusy`` (exit 2) when the first holds it past the wait. One unit's review, one
project's landing: each is one of these."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from aidlc_review.errors import LockBusy
from aidlc_review.flock import FileLock, Timeout


@contextmanager
def waiting_lock(
    path: Path, wait: float, say: Callable[[str], None], waiting: str, busy: str
) -> Iterator[None]:
    """Hold ``path``'s lock; ``waiting`` is said before a wait, ``busy`` raised after one."""
    lock = FileLock(str(path))
    try:
        lock.acquire(timeout=0)
    except Timeout:
        say(waiting)
        try:
            lock.acquire(timeout=wait)
        except Timeout:
            raise LockBusy(busy) from None
    try:
        yield
    finally:
        lock.release()
