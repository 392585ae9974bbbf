"""Paths named on the command line are checked before any work starts.

A review that runs for minutes and then cannot write its ``--sarif`` file, or a
``--answer`` that is a FIFO nobody writes to, is a usage error up front, not exit 3
after the report is written, nor a read that blocks forever.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from aidlc_review.errors import UsageError


def check_output_file(path: Path | None, option: str) -> None:
    """``path`` can be written: not a directory, under a writable directory."""
    if path is None:
        return
    if path.is_dir():
        raise UsageError(f"{option} {path}: is a directory; name a file")
    folder = path.absolute().parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent  # missing folders are created when the file is written
    if not folder.is_dir():
        raise UsageError(f"{option} {path}: {folder} is not a directory")
    if path.exists() and not path.is_file():
        raise UsageError(f"{option} {path}: not a regular file")
    if not os.access(folder, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise UsageError(f"{option} {path}: not writable")


def check_input_file(path: Path, option: str) -> None:
    """``path`` is a regular file (a FIFO or device would block or never end)."""
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        raise UsageError(f"{option} {path}: cannot read it: {exc.strerror}") from None
    if not stat.S_ISREG(mode):
        raise UsageError(f"{option} {path}: must be a regular file")
