"""Writing files: atomically, deterministically, in one place."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any


def _read_umask() -> int:
    current = os.umask(0o022)
    os.umask(current)
    return current


# read once at import, before any thread runs: os.umask can only be read by setting it
_UMASK = _read_umask()


def dump_json(data: Any, indent: int = 2) -> str:
    """The one JSON text form of every artifact: 2-space indent, trailing newline."""
    return json.dumps(data, indent=indent, ensure_ascii=False) + "\n"


def canonical_json(data: Any) -> bytes:
    """Canonical bytes for digests: sorted keys, no whitespace, UTF-8."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def sha256_bytes(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return "sha256:" + digest.hexdigest()


def write_atomic(path: Path, text: str | bytes) -> None:
    """Write via a temp file in the same directory, fsync, then rename over.

    A kill at any point leaves either the old file or the new one, never half.
    """
    data = text.encode() if isinstance(text, str) else text
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise _naming(path, exc) from None
    try:
        os.fchmod(fd, 0o666 & ~_UMASK)  # mkstemp makes 0600; artifacts honour the umask
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise _naming(path, exc) from None
        raise


FULL = (errno.ENOSPC, errno.EDQUOT)  # the CLI says these as exit 2, naming the file


def _naming(path: Path, exc: OSError) -> OSError:
    """``exc`` naming the file it was writing (a failed ``write`` names none)."""
    if exc.filename is not None:
        return exc
    return type(exc)(exc.errno, exc.strerror, str(path))
