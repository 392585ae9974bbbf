"""``ruff check --output-format json`` run on a batch of claimed files, read into findings.

Shared by the linter (the workspace's own rule selection) and the security lens (its own
``--isolated`` selection): one way to run ruff, read its JSON, quote its messages and give
each rule its one severity (``rule_severity``: by exact code, with the workspace's overrides).
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

from aidlc_review.sensors.context import SensorContext, SensorError, refuse_unchecked
from aidlc_review.sensors.results import CheckFinding, make_finding
from aidlc_review.sensors.rule_severity import Overrides
from aidlc_review.sensors.tools import last_line
from aidlc_review.severity import BLOCKING

CREDENTIALS = frozenset({"S105", "S106", "S107"})  # "possible hardcoded password"
# shorter than this, or without a letter or digit, a string is no credential: "<", "--", ""
CREDENTIAL_LENGTH = 8
NOT_A_CREDENTIAL = " (the value is too short or has no letter or digit to be a credential)"


def overrides_of(ctx: SensorContext) -> Overrides:
    """The workspace's severity overrides the review passed in ``settings["severity"]``."""
    return Overrides.from_settings(ctx.settings.get("severity"))


def check_batch(
    ctx: SensorContext, argv: list[str], batch: list[str]
) -> dict[str, list[CheckFinding]]:
    """ruff's findings on ``batch``, per claimed file (the descriptor's ``--no-cache``: ruff
    reads no cache an agent could rewrite)."""
    run = ctx.run([*argv, "--", *batch])
    refuse_unchecked(run)
    if run.returncode not in (0, 1):
        raise SensorError(
            f"ruff check exited {run.returncode}: {last_line(run.stderr or run.stdout)}"
        )
    return _parse(ctx, run.stdout, set(batch))


def _parse(ctx: SensorContext, out: str, batch: set[str]) -> dict[str, list[CheckFinding]]:
    try:
        items = json.loads(out)
    except json.JSONDecodeError as exc:
        raise SensorError(f"unreadable ruff check output (expected JSON): {exc}") from None
    if not isinstance(items, list):
        raise SensorError("unreadable ruff check output: expected a JSON list")
    root = str(ctx.workspace) + "/"
    overrides = overrides_of(ctx)
    found: dict[str, list[CheckFinding]] = {}
    for item in items:
        path = str(item.get("filename", "")).removeprefix(root)
        if path in batch:  # only claimed files count
            finding = _finding(ctx, overrides, path, item)
            if finding is not None:
                found.setdefault(path, []).append(finding)
    return found


def _finding(
    ctx: SensorContext, overrides: Overrides, path: str, item: dict[str, Any]
) -> CheckFinding | None:
    code = item.get("code") or "syntax"
    level = overrides.resolve(code, path)
    if level == "off":
        return None
    line = (item.get("location") or {}).get("row")
    message = f"{code} {item.get('message', '')}".strip()
    url = item.get("url")
    if isinstance(url, str) and url.startswith("https://"):
        message += f" ({url})"  # ruff's own page for the rule
    if code in CREDENTIALS and level in BLOCKING and not _may_be_credential(ctx, path, item):
        level, message = "minor", message + NOT_A_CREDENTIAL
    if ctx.manifest.severity_class == "advisory":
        level = "minor"  # an advisory sensor never blocks on its findings
    return make_finding(ctx.name, level, ctx.manifest.category, path, line, message, code)


def _may_be_credential(ctx: SensorContext, path: str, item: dict[str, Any]) -> bool:
    """Whether the string ruff points at could be a password (unreadable: assume it could).

    ruff's range is the literal for S105/S107 and ``name=literal`` for S106; both parse as
    the arguments of a call. The value is looked at here and never leaves this function."""
    source = _segment(ctx.workspace / path, item)
    try:
        call = ast.parse(f"_({source})", mode="eval").body
    except (SyntaxError, ValueError):
        return True
    values = [*getattr(call, "args", []), *(k.value for k in getattr(call, "keywords", []))]
    strings = [v.value for v in values if isinstance(v, ast.Constant) and isinstance(v.value, str)]
    if len(strings) != 1:
        return True
    value = strings[0]
    return len(value) >= CREDENTIAL_LENGTH and any(char.isalnum() for char in value)


def _segment(path: Path, item: dict[str, Any]) -> str:
    """The source text between ruff's location and end location (1-based rows and columns)."""
    start, end = item.get("location") or {}, item.get("end_location") or {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
        first, last = int(start["row"]) - 1, int(end["row"]) - 1
        chosen = lines[first : last + 1]
        chosen[-1] = chosen[-1][: int(end["column"]) - 1]
        chosen[0] = chosen[0][int(start["column"]) - 1 :]
    except (OSError, UnicodeDecodeError, KeyError, TypeError, ValueError, IndexError):
        return ""
    return "\n".join(chosen)
