"""This machine's review key: what authenticates the review's state and its caches.

It lives under ``$XDG_STATE_HOME/aidlc-review/`` (a relative value is ignored; default
``~/.local/state``), outside every workspace, is created on first use with mode 0600 and is
never put in an agent's environment. Seals (``review.record.seal``) and the sensors' result
cache (``sensors.cache``) take their HMACs under it, each bound to a label of its own.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path

KEY_FILE = "state.key"


def state_dir() -> Path:
    base = os.environ.get("XDG_STATE_HOME", "")
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".local" / "state"
    return root / "aidlc-review"


def machine_key() -> bytes:
    """The key, created (0600, in a 0700 folder) the first time it is asked for."""
    folder = state_dir()
    path = folder / KEY_FILE
    try:
        return path.read_bytes()
    except FileNotFoundError:
        pass
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_bytes()  # another run created it first
    with os.fdopen(fd, "wb") as handle:
        handle.write(secrets.token_bytes(32))
    return path.read_bytes()


def mac(key: bytes, label: bytes, data: bytes) -> str:
    """HMAC-SHA256 of ``data`` under ``key``, bound to ``label`` (what the bytes are)."""
    return hmac.new(key, label + b"\0" + data, hashlib.sha256).hexdigest()
