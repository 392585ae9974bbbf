"""security: ruff's bandit rules and swallowed-exception rules on every claimed Python file.

The linter sensor honours the workspace's rule selection; this one does not. ruff runs
``--isolated`` (no configuration file is read) with the manifest's own ``--select``, so a
workspace that selects only ``E`` still hears about SQL built by concatenation. What the
source itself says still counts: ruff honours ``# noqa: S608`` on the line.
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
from aidlc_review.sensors.globs import filter_matching
from aidlc_review.sensors.results import CheckFinding, CheckResult, judged
from aidlc_review.sensors.tools import last_line, shown_command


def run(ctx: SensorContext) -> CheckResult:
    if not ctx.files:
        return nothing_to_check(ctx)
    tool = select_tool(ctx)
    argv = ruff_argv(tool)
    if "--isolated" not in argv:
        raise SensorError("the security sensor's ruff argv must include --isolated")
    env = {"RUFF_CACHE_DIR": str(ctx.scratch / "ruff")}
    tests = _test_files(ctx)
    relaxed = set(ctx.option("ignore_in_tests", []))

    def check(batch: list[str]) -> dict[str, list[CheckFinding]]:
        run = ctx.run([*argv, "--", *batch], env)
        refuse_unchecked(run)
        if run.returncode not in (0, 1):
            raise SensorError(
                f"ruff check exited {run.returncode}: {last_line(run.stderr or run.stdout)}"
            )
        found = _parse(ctx, run.stdout, set(batch))
        return {
            path: [f for f in items if path not in tests or f.rule not in relaxed]
            for path, items in found.items()
        }

    # no configuration file is read (--isolated), so none belongs in the cache key
    key = (tool.spec.model_dump(), tool.version, sorted(tests), sorted(relaxed))
    findings = run_file_local(ctx, key, tool.spec.tool, [], check)
    return judged(
        ctx.name,
        findings,
        shown_command(argv, ctx.files),
        tool=tool.spec.tool,
        tool_version=tool.version,
    )


def _test_files(ctx: SensorContext) -> set[str]:
    found: set[str] = set()
    for pattern in ctx.option("test_files", []):
        found.update(filter_matching(pattern, ctx.files))
    return found


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
        if path in batch:
            found.setdefault(path, []).append(_finding(ctx, path, item))
    return found


def _finding(ctx: SensorContext, path: str, item: dict[str, Any]) -> CheckFinding:
    code = item.get("code") or "syntax"
    line = (item.get("location") or {}).get("row")
    message = f"{code} {item.get('message', '')}".strip()
    if item.get("url"):
        message += f" ({item['url']})"
    return ctx.finding(path, line, message, code, severity_key(ctx, code), "minor")


def severity_key(ctx: SensorContext, code: str) -> str:
    """The longest rule-code prefix the manifest maps (``S60`` beats ``S``), else ``default``."""
    keys = [k for k in ctx.runner.severity if k != "default" and code.startswith(k)]
    return max(keys, key=len) if keys else "default"
