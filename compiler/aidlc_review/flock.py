"""A lock file held with ``flock(2)``: one holder at a time across processes.

The kernel drops the lock when its holder's file is closed, so a run that is killed never
leaves one behind. The same lock that ``filelock.FileLock`` takes on POSIX, so both see
each other; this module exists because importing ``filelock`` (3.2x) imports asyncio and
ssl, about 60 ms of every command's start-up, for the one call made here. Not re-entrant:
each ``with`` is one acquisition. POSIX only, like the rest of the review (process groups).
"""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path
from types import TracebackType

POLL_SECONDS = 0.05


class Timeout(TimeoutError):
    """The lock was still held by another when the wait ran out."""

    def __init__(self, lock_file: str) -> None:
        super().__init__(f"the lock {lock_file} is held by another process")
        self.lock_file = lock_file


class FileLock:
    def __init__(self, path: str | Path, timeout: float | None = None) -> None:
        self.lock_file = str(path)
        self.timeout = timeout  # None: wait as long as it takes
        self._fd: int | None = None

    @property
    def is_locked(self) -> bool:
        return self._fd is not None

    def acquire(self, timeout: float | None = None) -> None:
        """Hold the lock, waiting up to ``timeout`` seconds (the lock's own when None)."""
        wait = self.timeout if timeout is None else timeout
        deadline = None if wait is None else time.monotonic() + max(wait, 0.0)
        fd = os.open(self.lock_file, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if deadline is not None and time.monotonic() >= deadline:
                        raise Timeout(self.lock_file) from None
                    time.sleep(POLL_SECONDS)
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)  # closing the file drops the lock

    def __enter__(self) -> FileLock:
        self.acquire()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.release()
