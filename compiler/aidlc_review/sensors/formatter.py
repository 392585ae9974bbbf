"""formatter: the workspace's configured formatter, check-only, one finding per unformatted file.

ruff format and black are both run with ``--check``, which never writes; the
tools' own caches are never read (ruff's ``--no-cache``, an empty black cache each run):
the agents the review polices could write them.
A finding is located at the first line the formatter would change: ruff's JSON names it,
black's ``--diff`` shows it as the first changed line of the file's first hunk.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from aidlc_review.sensors.context import (
    SensorContext,
    SensorError,
    refuse_unchecked,
    ruff_argv,
    run_file_local,
    select_tool,
)
from aidlc_review.sensors.described import run_with_described
from aidlc_review.sensors.results import CheckFinding, CheckResult, judged
from aidlc_review.sensors.tools import last_line, shown_command

CONFIG_FILES = ["pyproject.toml", "ruff.toml", ".ruff.toml"]
_BLACK_WOULD = re.compile(r"^would reformat (.+)$", re.MULTILINE)
_RUFF_WOULD = re.compile(r"^Would reformat: (.+)$", re.MULTILINE)
# black --diff: "--- <name>\t<timestamp>" then hunks "@@ -<start>[,<count>] +... @@"
_DIFF_FILE = re.compile(r"^--- (.+?)\t.*\n\+\+\+ .*\n@@ -(\d+)", re.MULTILINE)


def run(ctx: SensorContext) -> CheckResult:
    """The workspace's Python formatter on the claimed Python files; every other formatter
    it configures (prettier...) through its descriptor (``sensors.described``)."""
    return run_with_described(ctx, _own)


def _own(ctx: SensorContext) -> CheckResult:
    tool = select_tool(ctx)
    argv = ruff_argv(tool)
    # black skips a file its cache lists as formatted, and an agent can write that cache:
    # each run starts an empty one (ruff's descriptor says --no-cache)
    black_cache = Path(tempfile.mkdtemp(prefix="black-", dir=ctx.scratch))
    env = {"BLACK_CACHE_DIR": str(black_cache)}

    def check(batch: list[str]) -> dict[str, list[CheckFinding]]:
        run = ctx.run([*argv, "--", *batch], env)
        refuse_unchecked(run)
        parse = _parse_black if tool.spec.tool == "black" else _parse_ruff
        return parse(ctx, run.returncode or 0, run.stdout, run.stderr, batch)

    try:
        findings = run_file_local(
            ctx, (tool.spec.model_dump(), tool.version), tool.spec.tool, CONFIG_FILES, check
        )
    finally:
        shutil.rmtree(black_cache, ignore_errors=True)
    return judged(
        ctx.name,
        findings,
        shown_command(argv, ctx.files),
        tool=tool.spec.tool,
        tool_version=tool.version,
    )


def _unformatted(ctx: SensorContext, path: str, line: int | None = None) -> CheckFinding:
    return ctx.finding(
        path,
        line,
        "file is not formatted as the workspace's formatter requires",
        f"{ctx.name}/unformatted",
        "unformatted",
    )


def _parse_ruff(
    ctx: SensorContext, code: int, out: str, err: str, batch: list[str]
) -> dict[str, list[CheckFinding]]:
    if code not in (0, 1, 2):
        raise SensorError(f"ruff format exited {code}: {last_line(err or out)}")
    relative = _relativiser(ctx)
    found: dict[str, list[CheckFinding]] = {}
    if out.lstrip().startswith("["):
        try:
            items = json.loads(out)
        except json.JSONDecodeError as exc:
            raise SensorError(f"unreadable ruff format output: {exc}") from None
        for item in items:
            path = relative(item.get("filename", ""))
            line = (item.get("location") or {}).get("row")
            if item.get("code") == "unformatted":
                found.setdefault(path, []).append(_unformatted(ctx, path, line))
            else:
                message = f"cannot be formatted: {item.get('message', 'parse error')}"
                found.setdefault(path, []).append(
                    ctx.finding(
                        path, line, message, f"{ctx.name}/unparseable", "unparseable", "major"
                    )
                )
    else:
        for name in _RUFF_WOULD.findall(out):
            path = relative(name.strip())
            found.setdefault(path, []).append(_unformatted(ctx, path))
    if code == 2 and not found:
        raise SensorError(f"ruff format failed: {last_line(err or out)}")
    if code == 1 and not found:
        raise SensorError("ruff format reported unformatted files but named none")
    return _known(found, batch)


def _parse_black(
    ctx: SensorContext, code: int, out: str, err: str, batch: list[str]
) -> dict[str, list[CheckFinding]]:
    if code not in (0, 1, 123):
        raise SensorError(f"black exited {code}: {last_line(err or out)}")
    relative = _relativiser(ctx)
    first_changes = {relative(name): line for name, line in _first_changes(out).items()}
    found: dict[str, list[CheckFinding]] = {}
    for name in _BLACK_WOULD.findall(err):
        path = relative(name.strip())
        found.setdefault(path, []).append(_unformatted(ctx, path, first_changes.get(path)))
    for match in re.finditer(r"^error: cannot format (.+?): (.*)$", err, re.MULTILINE):
        path = relative(match.group(1))
        found.setdefault(path, []).append(
            ctx.finding(
                path,
                None,
                f"cannot be formatted: {match.group(2)}",
                f"{ctx.name}/unparseable",
                "unparseable",
                "major",
            )
        )
    if code != 0 and not found:
        raise SensorError(f"black exited {code}: {last_line(err or out)}")
    return _known(found, batch)


def _first_changes(diff: str) -> dict[str, int]:
    """The first line black would change in each file of its ``--diff`` output (old numbering).

    Only the line numbers are read: the diff quotes source text, which goes nowhere."""
    found: dict[str, int] = {}
    for match in _DIFF_FILE.finditer(diff):
        line = int(match.group(2))
        for text in diff[match.end() :].split("\n")[1:]:
            if text.startswith(("-", "+")):
                break
            line += 1  # a context line before the first change
        found.setdefault(match.group(1), max(line, 1))
    return found


def _relativiser(ctx: SensorContext) -> Callable[[str], str]:
    root = str(ctx.workspace.resolve()) + "/"
    alt = str(ctx.workspace) + "/"
    return lambda name: name.removeprefix(root).removeprefix(alt)


def _known(found: dict[str, list[CheckFinding]], batch: list[str]) -> dict[str, list[CheckFinding]]:
    """Refuse output naming files we never passed: it means we misread the tool."""
    strangers = sorted(set(found) - set(batch))
    if strangers:
        raise SensorError(f"formatter output names a file that was not checked: {strangers[0]}")
    return found
