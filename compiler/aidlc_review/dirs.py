"""The per-user cache directory (XDG base directories), found and checked in one place.

``$XDG_CACHE_HOME`` (a relative value is ignored, as the XDG spec says; default
``~/.cache``) holds the sensor result cache and the compile stamps. A variable naming
a file, or a directory the tool cannot write, is a usage error that names the
variable, never a traceback.
"""

from __future__ import annotations

import os
from pathlib import Path

from aidlc_review.errors import UsageError

VARIABLE = "XDG_CACHE_HOME"


def cache_dir(name: str) -> Path:
    """``<cache home>/aidlc-review/<name>`` (not created here: see ``ensure_cache_dir``)."""
    value = os.environ.get(VARIABLE, "")
    base = Path(value) if value and os.path.isabs(value) else Path.home() / ".cache"
    return base / "aidlc-review" / name


def ensure_cache_dir(folder: Path) -> Path:
    """Create ``folder`` if missing; a usage error naming the variable (or the folder) when
    it cannot be created or written."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        problem = None if os.access(folder, os.W_OK | os.X_OK) else "not writable"
    except OSError as exc:
        problem = exc.strerror or str(exc)
    if problem is None:
        return folder
    value = os.environ.get(VARIABLE, "")
    from_variable = value and os.path.isabs(value) and folder.is_relative_to(value)
    where = f"{VARIABLE}={value}" if from_variable else str(folder)
    raise UsageError(
        f"{where}: cannot hold the cache directory {folder}: {problem}; "
        f"point {VARIABLE} at a writable directory"
    )
