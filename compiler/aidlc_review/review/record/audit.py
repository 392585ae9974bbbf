"""Who decided and when: the audit stamp every pass and gate decision carries.

The decider is ``--by`` when given, else git's ``user.email`` for the workspace, else
the OS user. Times are UTC to the second, ISO 8601 (``2026-05-01T09:30:00Z``).
What no pass or gate decision holds (a reset, a pass redone because its checks could not
verify) goes to the unit's append-only audit log, ``audit.jsonl`` in its engine directory.
"""

from __future__ import annotations

import getpass
import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from aidlc_review.errors import InvalidInput
from aidlc_review.gitdoor import git_text


def utc_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def decider(workspace: Path, given: str | None = None) -> str:
    if given and given.strip():
        return given.strip()
    email = git_text(workspace, "config", "user.email", timeout=10) or ""
    if email:
        return email
    try:
        return getpass.getuser()
    except (OSError, KeyError):
        return "unknown"


AUDIT_LOG = "audit.jsonl"


def append_event(log: Path, event: dict[str, Any]) -> None:
    """Add one event (a reset, a redone pass) to the unit's append-only audit log: one JSON
    line, flushed to disk before the caller goes on; earlier lines are never rewritten."""
    log.parent.mkdir(parents=True, exist_ok=True)
    line = json.dumps(event, sort_keys=True, ensure_ascii=True) + "\n"
    with log.open("a", encoding="utf-8") as out:
        out.write(line)
        out.flush()
        os.fsync(out.fileno())


def read_events(log: Path, kind: str | None = None) -> list[dict[str, Any]]:
    """The log's events in order (only those of ``kind`` when given); a line that is not a
    JSON object is bad input naming its file and line."""
    if not log.is_file():
        return []
    events = []
    for number, text in enumerate(log.read_text(encoding="utf-8").splitlines(), start=1):
        try:
            event = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InvalidInput(f"{log}:{number}: not a JSON audit event: {exc.msg}") from None
        if not isinstance(event, dict):
            raise InvalidInput(f"{log}:{number}: an audit event must be a JSON object")
        if kind is None or event.get("event") == kind:
            events.append(event)
    return events
