"""The per-file result cache: one SQLite file, keyed by content hash + tool version + tool config.

SQLite because a 1,000-file run stores 1,000 entries in one transaction, and
concurrent runs (xdist workers, parallel Bolt units) share it safely. Losing the
cache only costs time, so it is never fsynced per entry. One run's sensors use one
``ResultCache`` from several threads (``sensors.api``): its connection is used under a lock.

The agents the review polices can write the cache home. So every entry on disk carries an
HMAC under this machine's review key (``state_key``), bound to its key; an entry whose MAC
does not verify is not a result, only a miss: the tool runs again and the entry is replaced.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from aidlc_review.dirs import cache_dir, ensure_cache_dir
from aidlc_review.fsio import sha256_file
from aidlc_review.state_key import mac, machine_key

SCHEMA = "CREATE TABLE IF NOT EXISTS entries (key TEXT PRIMARY KEY, value TEXT NOT NULL)"
PROBE = "SELECT key, value FROM entries LIMIT 1"
LABEL = b"aidlc-review sensor cache v1"


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/aidlc-review/sensors`` (checked when a cache is opened there)."""
    return Path(cache_dir("sensors"))


def digest(*parts: Any) -> str:
    """A key from anything JSON-serialisable, order-sensitive."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


class ResultCache:
    """Key -> JSON value. ``directory=None`` keeps everything in memory for this run only."""

    def __init__(
        self, directory: Path | None, progress: Callable[[str], None] | None = None
    ) -> None:
        self.directory = directory
        self._lock = threading.Lock()
        self._key: bytes | None = None  # in memory, nothing else can write the entries
        self._progress = progress
        self.forged = 0  # entries whose MAC did not verify: read as misses
        self.unwritable = False  # the disk is full: this run stores nothing more
        if directory is None:
            self._db = _open(":memory:")
            return
        self._key = machine_key()
        ensure_cache_dir(directory)  # a bad XDG_CACHE_HOME is a usage error
        path = directory / "results.sqlite3"
        try:
            self._db = _open(str(path))
        except sqlite3.DatabaseError as exc:
            if _is_busy(exc):
                raise  # a healthy cache another run holds: not ours to move
            if _is_full(exc):  # a healthy cache on a full disk: this run keeps results in memory
                self._said_full(exc)
                self._db = _open(":memory:")
                return
            # the cache is disposable: a file that is not our database is set aside, not fatal
            _move_aside(path)
            if progress is not None:
                progress(
                    f"sensors: unreadable result cache moved aside to {path}.broken; rebuilding"
                )
            self._db = _open(str(path))

    def get_many(self, keys: list[str]) -> dict[str, Any]:
        found: dict[str, Any] = {}
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            marks = ",".join("?" * len(chunk))
            query = f"SELECT key, value FROM entries WHERE key IN ({marks})"  # noqa: S608 (only ? marks)
            with self._lock:
                rows = self._db.execute(query, chunk).fetchall()
            for key, value in rows:
                text = self._verified(key, value)
                if text is not None:
                    found[key] = json.loads(text)
        return found

    def _sealed(self, key: str, text: str) -> str:
        if self._key is None:
            return text
        return mac(self._key, LABEL + b"\0" + key.encode(), text.encode()) + ":" + text

    def _verified(self, key: str, value: str) -> str | None:
        """The entry's JSON text when its MAC verifies (always in memory); else None."""
        if self._key is None:
            return value
        tag, _, text = value.partition(":")
        if not hmac.compare_digest(tag, self._sealed(key, text).partition(":")[0]):
            self.forged += 1
            return None
        return text

    def get(self, key: str) -> Any:
        return self.get_many([key]).get(key)

    def put_many(self, items: dict[str, Any]) -> None:
        if not items:
            return
        rows = [
            (key, self._sealed(key, json.dumps(value, sort_keys=True)))
            for key, value in items.items()
        ]
        # one explicit transaction: in autocommit mode every row would be its own commit
        with self._lock:
            if self.unwritable:
                return
            try:
                self._insert(rows)
            except sqlite3.DatabaseError as exc:
                if not _is_full(exc):
                    raise
                self.unwritable = True  # losing the cache only costs time
                self._said_full(exc)

    def _insert(self, rows: list[tuple[str, str]]) -> None:
        self._db.execute("BEGIN")
        try:
            self._db.executemany("INSERT OR REPLACE INTO entries (key, value) VALUES (?, ?)", rows)
            self._db.execute("COMMIT")
        except BaseException:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise

    def _said_full(self, exc: sqlite3.DatabaseError) -> None:
        if self._progress is not None:
            where = self.directory / "results.sqlite3" if self.directory else "memory"
            self._progress(
                f"sensors: the result cache {where} cannot be written ({exc}): "
                "this run stores no results there (it costs time, not the verdict)"
            )

    def evict(self, current_scratch: Path) -> None:
        """Keep the on-disk cache bounded (``sensors.eviction``); in memory, nothing to do."""
        if self.directory is None:
            return
        from aidlc_review.sensors.eviction import evict_cache

        with self._lock:
            evict_cache(self.directory, self._db, current_scratch)

    def close(self) -> None:
        with self._lock:
            self._db.close()


def healthy_cache(directory: Path) -> ResultCache | None:
    """The cache at ``directory`` unless its file is broken (then None: a sensors' run says
    so and moves it aside, not a reader that only wants a memo)."""
    path = directory / "results.sqlite3"
    if path.exists():
        try:
            _open(str(path)).close()
        except sqlite3.DatabaseError:
            return None
    return ResultCache(directory)


def shared_cache() -> ResultCache | None:
    """The sealed cache at the default home, opened once per process (per cache home) for
    the memos read outside a sensors' run (clean names, the descriptors' names); None when it
    cannot be opened (a memo then misses: its answer is computed)."""
    try:
        directory = default_cache_dir()
    except Exception:  # noqa: BLE001 (no memo: every answer is computed, as before)
        return None
    with _OPENING:
        if _OPEN and _OPEN[0][0] == directory:
            return _OPEN[0][1]
        while _OPEN:
            _OPEN.pop()[1].close()  # another cache home (tests): one connection at a time
        try:
            cache = healthy_cache(directory)
        except Exception:  # noqa: BLE001 (no memo: every answer is computed, as before)
            return None
        if cache is not None:
            _OPEN.append((directory, cache))
        return cache


_OPEN: list[tuple[Path, ResultCache]] = []
_OPENING = threading.Lock()  # the sensors' threads redact their messages


def _open(target: str) -> sqlite3.Connection:
    """A connection whose ``entries`` table answers; ``sqlite3.DatabaseError`` otherwise."""
    # check_same_thread off: the sensors' threads share it, one at a time (``_lock``)
    db = sqlite3.connect(target, timeout=30.0, isolation_level=None, check_same_thread=False)
    try:
        # no WAL: setting it up on a new cache costs more (~20 ms) than a whole cached run;
        # writes are one short transaction per sensor, so readers rarely wait
        db.execute("PRAGMA synchronous=OFF")
        db.execute(SCHEMA)
        db.execute(PROBE).fetchall()
    except sqlite3.DatabaseError:
        db.close()
        raise
    return db


def _is_busy(exc: sqlite3.DatabaseError) -> bool:
    code = getattr(exc, "sqlite_errorcode", 0) & 0xFF  # the primary code of an extended one
    return code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def _is_full(exc: sqlite3.DatabaseError) -> bool:
    """The disk (or quota) is full, or the file cannot be written: not a broken cache."""
    code = getattr(exc, "sqlite_errorcode", 0) & 0xFF
    return code in (sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_READONLY)


def _move_aside(path: Path) -> None:
    """The broken file and its journal go to ``*.broken`` (replacing an older one)."""
    for suffix in ("", "-journal"):
        broken = Path(f"{path}{suffix}")
        try:
            os.replace(broken, f"{path}.broken{suffix}")
        except FileNotFoundError:
            pass


class ConfigDigests:
    """The digest of the tool config files that apply to a file: those in its folder and above.

    Memoised per folder, so 1,000 files in ten folders read each config file once.
    """

    def __init__(self, workspace: Path, names: list[str]):
        self.workspace = workspace
        self.names = sorted(names)
        self._by_dir: dict[str, str] = {}

    def for_file(self, relative: str) -> str:
        parent = relative.rsplit("/", 1)[0] if "/" in relative else ""
        return self._for_dir(parent)

    def _for_dir(self, folder: str) -> str:
        if folder not in self._by_dir:
            above = (
                self._for_dir(folder.rsplit("/", 1)[0] if "/" in folder else "") if folder else ""
            )
            here = [
                (name, sha256_file(p))
                for name in self.names
                if (p := self.workspace / folder / name).is_file()
            ]
            self._by_dir[folder] = digest(above, here) if here else above
        return self._by_dir[folder]
