"""linter: ``ruff check`` with JSON output on the claimed files, violations mapped to findings.

A finding quotes ruff's message with its rule code and ruff's URL for the rule.

The workspace's ruff configuration applies unchanged; ``--no-fix`` keeps the
source untouched and ruff's cache is kept out of the workspace.
"""

from __future__ import annotations

import json
from typing import Any

from aidlc_review.sensors.context import (
    SensorContext,
    SensorError,
    nothing_to_check,
    refuse_unchecked,
    ruff_argv,
    run_file_local,
    select_tool,
)
from aidlc_review.sensors.results import CheckFinding, CheckResult, judged
from aidlc_review.sensors.tools import last_line, shown_command

CONFIG_FILES = ["pyproject.toml", "ruff.toml", ".ruff.toml"]


def run(ctx: SensorContext) -> CheckResult:
    if not ctx.files:
        return nothing_to_check(ctx)
    tool = select_tool(ctx)
    argv = ruff_argv(tool)
    env = {"RUFF_CACHE_DIR": str(ctx.scratch / "ruff")}

    def check(batch: list[str]) -> dict[str, list[CheckFinding]]:
        run = ctx.run([*argv, "--", *batch], env)
        refuse_unchecked(run)
        if run.returncode not in (0, 1):
            raise SensorError(
                f"ruff check exited {run.returncode}: {last_line(run.stderr or run.stdout)}"
            )
        return _parse(ctx, run.stdout, set(batch))

    findings = run_file_local(
        ctx, (tool.spec.model_dump(), tool.version), tool.spec.tool, CONFIG_FILES, check
    )
    return judged(
        ctx.name,
        findings,
        shown_command(argv, ctx.files),
        tool=tool.spec.tool,
        tool_version=tool.version,
    )


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
        if path not in batch:
            continue  # only claimed files count
        found.setdefault(path, []).append(_finding(ctx, path, item))
    return found


def _finding(ctx: SensorContext, path: str, item: dict[str, Any]) -> CheckFinding:
    code = item.get("code") or "syntax"
    line = (item.get("location") or {}).get("row")
    message = f"{code} {item.get('message', '')}".strip()
    url = item.get("url")
    if isinstance(url, str) and url.startswith("https://"):
        message += f" ({url})"  # ruff's own page for the rule
    return ctx.finding(path, line, message, code, _severity_key(ctx, code), "minor")


def _severity_key(ctx: SensorContext, code: str) -> str:
    """The longest rule-code prefix the manifest maps (``E9`` beats ``E``), else ``default``."""
    if code == "invalid-syntax":
        code = "E999"  # what ruff called a syntax error before it stopped giving it a code
    keys = [k for k in ctx.runner.severity if k != "default" and code.startswith(k)]
    return max(keys, key=len) if keys else "default"
