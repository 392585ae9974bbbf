"""A per-machine starting point for a tool's incremental cache, so a new workspace does not
start cold.

A tool whose descriptor keeps an incremental cache (``flags.cache``) keeps it per workspace
(``type_check``), and every Bolt worktree or CI checkout is a new workspace: its first run
analyses the standard library, the stubs and every module again, most of the tool's time on
a small unit. Where the runner's manifest says the cache may be seeded (``options.seed``:
the tool checks each cached entry against its source and its dependencies and analyses again
whatever differs, so a seeded run reports what a cold one would), the first workspace whose
run ended without a secret in sight leaves a copy of its cache (``publish``), and a
workspace without a cache of its own starts from a copy of that (``plant``).

A seed saves work and decides nothing. A seeded run that fails is run again cold
(``type_check``) and the seed is dropped. A seed is keyed by the tool, its version and its
executable (``seeds/<tool>/<key>``), is copied whole into a temporary folder and renamed
into place (complete or absent), and is never written again: a second publisher's copy is
discarded. A seed is sealed like the cache it came from (``tool_cache``): one that no longer
matches its seal is removed, not planted.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

from aidlc_review.sensors import tool_cache
from aidlc_review.sensors.cache import digest

STALE_SECONDS = 600.0  # a staging folder this old is a killed copy's, not a running one's


def location(seeds: Path, tool: str, version: str, executable: Path) -> Path:
    """The seed for this tool: one per version and install (each has its own stubs)."""
    return seeds / tool / digest(version, str(executable))[:16]


def plant(seed: Path, cache: Path) -> bool:
    """Start ``cache`` (absent) from a copy of ``seed``; False when there is nothing to do or
    the copy failed (then the tool simply starts cold). The caller holds the cache's lock
    (``tool_cache.lock_of``), so any half copy beside ``cache`` is a killed run's."""
    if cache.exists() or not seed.is_dir() or not tool_cache.trusted(seed):
        return False  # a seed not as its publisher sealed it is removed, never copied
    _remove_half_copies(cache, older_than=0)
    return _copy_into_place(seed, cache)


def publish(cache: Path, seed: Path) -> None:
    """Leave a copy of ``cache`` as the seed, unless there is one already."""
    if seed.exists() or not cache.is_dir():
        return
    seed.parent.mkdir(parents=True, exist_ok=True)
    _remove_half_copies(seed, older_than=STALE_SECONDS)  # others may be copying right now
    if _copy_into_place(cache, seed):
        tool_cache.seal(seed)


def discard(seed: Path) -> None:
    """Drop a seed a run could not use (the next clean run leaves a new one)."""
    try:
        doomed = Path(tempfile.mkdtemp(prefix=f".{seed.name}.", dir=seed.parent))
        os.replace(seed, doomed / seed.name)  # gone at once for every later run
    except OSError:
        return
    shutil.rmtree(doomed, ignore_errors=True)


def _remove_half_copies(target: Path, older_than: float) -> None:
    """The staging folders a run killed while copying left beside ``target``."""
    now = time.time()
    for left in target.parent.glob(f".{target.name}.*"):
        try:
            if now - left.stat().st_mtime >= older_than:
                shutil.rmtree(left, ignore_errors=True)
        except OSError:
            continue


def _copy_into_place(source: Path, target: Path) -> bool:
    try:
        staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    except OSError:
        return False
    try:
        shutil.copytree(source, staging / target.name, symlinks=True)
        os.rename(staging / target.name, target)  # refused when another copy got there first
        return True
    except OSError:
        return False
    finally:
        shutil.rmtree(staging, ignore_errors=True)
