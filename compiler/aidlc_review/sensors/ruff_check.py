"""``ruff check --output-format json`` run on a batch of claimed files, read into findings.

Shared by the linter (the workspace's own rule selection) and the security lens (its own
``--isolated`` selection): one way to run ruff, read its JSON and quote its messages.
"""

from __future__ import annotations

import json
from typing import Any

from aidlc_review.sensors.context import SensorContext, SensorError, refuse_unchecked
from aidlc_review.sensors.results import CheckFinding
from aidlc_review.sensors.tools import last_line


def check_batch(
    ctx: SensorContext, argv: list[str], batch: list[str]
) -> dict[str, list[CheckFinding]]:
    """ruff's findings on ``batch``, per claimed file (ruff's cache kept out of the workspace)."""
    run = ctx.run([*argv, "--", *batch], {"RUFF_CACHE_DIR": str(ctx.scratch / "ruff")})
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
    found: dict[str, list[CheckFinding]] = {}
    for item in items:
        path = str(item.get("filename", "")).removeprefix(root)
        if path in batch:  # only claimed files count
            found.setdefault(path, []).append(_finding(ctx, path, item))
    return found


def _finding(ctx: SensorContext, path: str, item: dict[str, Any]) -> CheckFinding:
    code = item.get("code") or "syntax"
    line = (item.get("location") or {}).get("row")
    message = f"{code} {item.get('message', '')}".strip()
    url = item.get("url")
    if isinstance(url, str) and url.startswith("https://"):
        message += f" ({url})"  # ruff's own page for the rule
    return ctx.finding(path, line, message, code, severity_key(ctx, code), "minor")


def severity_key(ctx: SensorContext, code: str) -> str:
    """The longest rule-code prefix the manifest maps (``E9`` beats ``E``), else ``default``."""
    if code == "invalid-syntax":
        code = "E999"  # what ruff called a syntax error before it stopped giving it a code
    keys = [k for k in ctx.runner.severity if k != "default" and code_matches(code, k)]
    return max(keys, key=len) if keys else "default"


def code_matches(code: str, key: str) -> bool:
    """``key`` names ``code``'s rule family: the same letters, then a prefix of its digits.

    ``F`` is pyflakes (``F401``), not flake8-fixme (``FIX002``), refurb (``FURB``) or
    flake8-boolean-trap (``FBT``); ``S`` is bandit, not flake8-simplify (``SIM``) or
    flake8-self (``SLF``); ``E9`` is ``E902``."""
    letters, digits = _split(code)
    key_letters, key_digits = _split(key)
    return letters == key_letters and digits.startswith(key_digits)


def _split(code: str) -> tuple[str, str]:
    cut = len(code) - len(code.lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
    return code[:cut], code[cut:]
