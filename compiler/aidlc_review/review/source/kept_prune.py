"""The kept-source store is a cache with bounds: what is not used ages out, the whole is capped.

A file's mtime is its last use: ``kept_source`` touches every snapshot and blob it keeps
again or reads. A pass that keeps source calls ``prune_now_and_then``; at most once a day
per store (the mtime of its ``.pruned`` marker says when it last ran) it removes every
file not used for ``MAX_AGE_SECONDS``, then the oldest files until the store holds at
most ``MAX_STORE_BYTES``. Removing is safe at any time: a snapshot or blob that is gone
only costs a brief its diff, and a failed removal is left for the next day.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

MAX_AGE_SECONDS = 30 * 24 * 3600
MAX_STORE_BYTES = 512 * 1024 * 1024
PRUNE_EVERY_SECONDS = 24 * 3600
MARKER = ".pruned"


def touch(path: Path) -> None:
    """Mark ``path`` as used now (best effort: a read-only store just ages sooner)."""
    with contextlib.suppress(OSError):
        os.utime(path)


def prune_now_and_then(store: Path, now: float | None = None) -> list[Path]:
    """``prune`` the store unless that was done less than a day ago; the files removed."""
    now = time.time() if now is None else now
    marker = store / MARKER
    with contextlib.suppress(FileNotFoundError):
        if now - marker.stat().st_mtime < PRUNE_EVERY_SECONDS:
            return []
    store.mkdir(parents=True, exist_ok=True)
    marker.touch()
    os.utime(marker, (now, now))  # first: a concurrent pass sees it and leaves the work to us
    return prune(store, now)


def prune(
    store: Path,
    now: float,
    max_age: float = MAX_AGE_SECONDS,
    max_bytes: int = MAX_STORE_BYTES,
) -> list[Path]:
    """Remove files unused for ``max_age`` seconds, then the oldest past ``max_bytes``."""
    removed = []
    kept_bytes, full = 0, False
    for mtime, size, path in sorted(_entries(store), reverse=True):  # newest first
        full = full or kept_bytes + size > max_bytes
        if full or now - mtime > max_age:
            if _remove(path):
                removed.append(path)
        else:
            kept_bytes += size
    return sorted(removed)


def _entries(store: Path) -> list[tuple[float, int, Path]]:
    found = []
    for path in store.rglob("*"):
        if path.name == MARKER and path.parent == store:
            continue
        with contextlib.suppress(OSError):
            stat = path.lstat()
            if path.is_file() and not path.is_symlink():
                found.append((stat.st_mtime, stat.st_size, path))
    return found


def _remove(path: Path) -> bool:
    try:
        path.unlink()
    except OSError:
        return False
    with contextlib.suppress(OSError):
        path.parent.rmdir()  # a blob's two-letter folder, once empty
    return True
