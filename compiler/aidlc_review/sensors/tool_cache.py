"""A tool's own cache folder (``flags.cache``), used only while this machine's seal on it holds.

A tool's cache decides what it reports: an incremental type checker does not analyse again a
module whose cached metadata matches its source, so a cache an agent rewrote could drop an
error. The folder sits
under the cache home, which the agents the review polices can reach. So after each run the
review seals the folder: an HMAC under the machine's key (``state_key``) over every entry's
path, size, inode and change time. The change time (``st_ctime``) is set by the kernel on any
write, rename or ``utime`` and cannot be set back by an unprivileged process; so a folder
whose listing still matches its seal holds exactly the bytes the tool itself left there.
Before the next run, a folder whose seal does not verify (or has none) is removed: the tool
starts cold, which costs time and decides nothing.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from aidlc_review.flock import FileLock
from aidlc_review.state_key import mac, machine_key

LABEL = b"aidlc-review tool cache v1"
SEAL = ".aidlc-review-seal"  # inside the folder: it goes wherever the folder goes
LOCK = "tool-cache.lock"


def cache_of(scratch: Path, tool: str) -> Path:
    """Where ``tool`` keeps its cache for a check: in the check's scratch folder, never the
    workspace."""
    return scratch / f"{tool}-cache"


def lock_of(scratch: Path) -> FileLock:
    """The turn on the tool caches of a check's scratch folder: two reviews of one workspace
    (two units, or two runs) share them, and concurrent runs of a tool on one cache can crash
    each other, or copy a cache another is writing (a torn seed)."""
    return FileLock(str(scratch / LOCK))


def seal_of(folder: Path) -> Path:
    return folder / SEAL


def trusted(folder: Path) -> bool:
    """True when ``folder`` is absent or exactly as sealed; otherwise remove it (and its seal)
    and return False. The caller holds the folder's lock."""
    if not folder.exists():
        return True
    try:
        sealed = seal_of(folder).read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        sealed = ""
    if sealed and sealed == _mac(folder):
        return True
    forget(folder)
    return False


def seal(folder: Path) -> None:
    """Seal ``folder`` as the tool left it (atomically; a failure leaves it unsealed, so the
    next run starts cold)."""
    if not folder.is_dir():
        return
    target = seal_of(folder)
    staging = target.with_name(target.name + f".{os.getpid()}")
    try:
        staging.write_text(_mac(folder) + "\n", encoding="ascii")
        os.replace(staging, target)
    except OSError:
        staging.unlink(missing_ok=True)
        target.unlink(missing_ok=True)


def forget(folder: Path) -> None:
    """Drop a cache and its seal (the seal first: a half-removed folder is never trusted)."""
    try:
        seal_of(folder).unlink(missing_ok=True)
    except OSError:
        pass  # not a folder: removed below all the same
    shutil.rmtree(folder, ignore_errors=True)
    if folder.is_symlink() or folder.is_file():
        folder.unlink(missing_ok=True)


def _mac(folder: Path) -> str:
    return mac(machine_key(), LABEL, "\n".join(_listing(folder)).encode())


def _listing(folder: Path) -> list[str]:
    """Every entry under ``folder`` but the seal: path, type, size, inode and change time,
    sorted. A symlink is listed, never followed."""
    rows = []
    for root, dirs, files in os.walk(folder):
        for name in [*dirs, *files]:
            if root == str(folder) and name == SEAL:
                continue
            path = os.path.join(root, name)
            info = os.lstat(path)
            relative = os.path.relpath(path, folder)
            rows.append(
                f"{relative}\0{info.st_mode:o}\0{info.st_size}\0{info.st_ino}\0{info.st_ctime_ns}"
            )
    return sorted(rows)
