"""Who decided and when: the audit stamp every pass and gate decision carries.

The decider is ``--by`` when given, else git's ``user.email`` for the workspace, else
the OS user. Times are UTC to the second, ISO 8601 (``2026-05-01T09:30:00Z``).
"""

from __future__ import annotations

import getpass
import subprocess
from datetime import UTC, datetime
from pathlib import Path


def utc_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def decider(workspace: Path, given: str | None = None) -> str:
    if given and given.strip():
        return given.strip()
    try:
        done = subprocess.run(
            ["git", "config", "user.email"],
            cwd=workspace,
            capture_output=True,
            text=True,
            timeout=10,
        )
        email = done.stdout.strip() if done.returncode == 0 else ""
    except (OSError, subprocess.SubprocessError):
        email = ""
    if email:
        return email
    try:
        return getpass.getuser()
    except (OSError, KeyError):
        return "unknown"
