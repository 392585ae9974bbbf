"""The per-user cache directory (XDG base directories), found and checked in one place.

``$XDG_CACHE_HOME`` (a relative value is ignored, as the XDG spec says; default
``~/.cache``) holds the sensor result cache and the compile stamps. A variable naming
a file, or a directory the tool cannot write, is a usage error that names the
variable, never a traceback. Paths are plain strings (``os.path`` only): the compile
stamp's fast path reads its cache without importing ``pathlib``.
"""

from __future__ import annotations

import os

from aidlc_review.errors import UsageError

VARIABLE = "XDG_CACHE_HOME"


def cache_dir(name: str) -> str:
    """``<cache home>/aidlc-review/<name>`` (not created here: see ``ensure_cache_dir``)."""
    value = os.environ.get(VARIABLE, "")
    base = (
        value if value and os.path.isabs(value) else os.path.join(os.path.expanduser("~"), ".cache")
    )
    return os.path.join(base, "aidlc-review", name)


def ensure_cache_dir(folder: str | os.PathLike[str]) -> None:
    """Create ``folder`` if missing; a usage error naming the variable (or the folder) when
    it cannot be created or written."""
    folder = os.fspath(folder)
    try:
        os.makedirs(folder, exist_ok=True)
        problem = None if os.access(folder, os.W_OK | os.X_OK) else "not writable"
    except OSError as exc:
        problem = exc.strerror or str(exc)
    if problem is None:
        return
    value = os.environ.get(VARIABLE, "")
    from_variable = value and os.path.isabs(value) and _is_under(folder, value)
    where = f"{VARIABLE}={value}" if from_variable else folder
    raise UsageError(
        f"{where}: cannot hold the cache directory {folder}: {problem}; "
        f"point {VARIABLE} at a writable directory"
    )


def _is_under(path: str, folder: str) -> bool:
    """Lexically, as ``PurePath.is_relative_to``."""
    path, folder = os.path.normpath(path), os.path.normpath(folder)
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)
