"""Keeping the sensor cache bounded: it is disposable, so the oldest goes first.

Three things grow under ``$XDG_CACHE_HOME/aidlc-review/sensors``:

- ``results.sqlite3``: per-file results. Rows are ordered by insertion (``INSERT OR
  REPLACE`` gives a re-stored result a new rowid), so the oldest rows beyond
  ``MAX_RESULTS`` are deleted, and the file compacted when many went;
- ``scratch/<workspace>``: the tools' own caches (a linter's, a type checker's, coverage
  data), one folder per workspace, so every Bolt worktree or temporary checkout leaves one
  behind. Folders beyond ``MAX_SCRATCH`` or ``MAX_SCRATCH_BYTES`` go, least recently used
  first, never the one in use or one used in the last ``IN_USE_SECONDS`` (another run may
  hold it);
- ``seeds/<tool>/<version>``: per-machine starting points for a tool's incremental cache
  (``incremental_seed``); the newest ``MAX_SEEDS`` of each tool stay.
"""

from __future__ import annotations

import shutil
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

MAX_RESULTS = 200_000  # rows; a result is a few hundred bytes
MAX_SCRATCH = 24  # workspaces
MAX_SCRATCH_BYTES = 512 * 1024 * 1024
MAX_SEEDS = 4
IN_USE_SECONDS = 3600.0
COMPACT_AFTER = 20_000  # rows deleted at once before the file is compacted
EVERY_SECONDS = 3600.0  # a run looks at most this often (sizing scratch walks every file)
MARKER = ".evicted"


@dataclass(frozen=True)
class Evicted:
    results: int
    folders: list[str]

    def __bool__(self) -> bool:
        return bool(self.results or self.folders)


def evict_cache(root: Path, db: sqlite3.Connection | None, current: Path) -> Evicted:
    """Bound the whole cache under ``root``, at most once per ``EVERY_SECONDS``."""
    marker = root / MARKER
    try:
        if time.time() - marker.stat().st_mtime < EVERY_SECONDS:
            return Evicted(0, [])
    except FileNotFoundError:
        pass
    marker.touch()
    results = evict_results(db) if db is not None else 0
    folders = evict_folders(root / "scratch", current, MAX_SCRATCH, MAX_SCRATCH_BYTES)
    for tool in _folders(root / "seeds"):
        folders += evict_folders(tool, None, MAX_SEEDS)
    return Evicted(results, folders)


def _folders(parent: Path) -> list[Path]:
    """The folders of ``parent`` (none when it is absent), sorted; a link is not followed."""
    if not parent.is_dir():
        return []
    return sorted(p for p in parent.iterdir() if p.is_dir() and not p.is_symlink())


def evict_results(db: sqlite3.Connection, keep: int = MAX_RESULTS) -> int:
    """Delete all but the newest ``keep`` rows; the number deleted."""
    (newest,) = db.execute("SELECT COALESCE(MAX(rowid), 0) FROM entries").fetchone()
    (count,) = db.execute("SELECT COUNT(*) FROM entries").fetchone()
    if count <= keep:
        return 0
    (cut,) = db.execute(
        "SELECT rowid FROM entries ORDER BY rowid DESC LIMIT 1 OFFSET ?", (keep,)
    ).fetchone()
    gone = db.execute("DELETE FROM entries WHERE rowid <= ?", (cut,)).rowcount
    if gone >= COMPACT_AFTER and newest:
        db.execute("VACUUM")
    return int(gone)


def touch(folder: Path) -> None:
    """Mark a scratch folder used now (its mtime is what eviction reads)."""
    folder.mkdir(parents=True, exist_ok=True)
    folder.touch()


def evict_folders(
    parent: Path,
    current: Path | None,
    max_count: int,
    max_bytes: int | None = None,
    now: float | None = None,
) -> list[str]:
    """Remove the least recently used folders of ``parent`` beyond the limits."""
    if not parent.is_dir():
        return []
    now = time.time() if now is None else now
    folders = sorted(
        (p for p in parent.iterdir() if p.is_dir() and not p.is_symlink()),
        key=lambda p: p.stat().st_mtime,
        reverse=True,
    )
    kept, removed, size = 0, [], 0
    for folder in folders:
        size += _size(folder) if max_bytes is not None else 0
        over = kept >= max_count or (max_bytes is not None and size > max_bytes)
        recent = now - folder.stat().st_mtime < IN_USE_SECONDS
        if not over or folder == current or recent:
            kept += 1
            continue
        shutil.rmtree(folder, ignore_errors=True)
        removed.append(folder.name)
    return removed


def _size(folder: Path) -> int:
    total = 0
    for path in folder.rglob("*"):
        try:
            if path.is_file() and not path.is_symlink():
                total += path.stat().st_size
        except OSError:
            continue  # another run removed it meanwhile
    return total
