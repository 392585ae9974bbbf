"""type-check: mypy on the claimed files; only errors located in claimed files become findings.

Whole-program, so not cached per file: an edit to one module can change the
errors reported in another. mypy's own incremental cache (kept in our scratch
directory, never the workspace) makes re-runs cheap instead, and a workspace's first
run starts from the machine's seed of that cache (``mypy_seed``).

Only the ``# type: ignore`` and ``# mypy:`` comments that stood at the unit's base are
honoured (``suppressions``): mypy reads each claimed file holding one the change added from a
shadow copy without it (``--shadow-file``), and what it then reports there is hidden by it.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

from aidlc_review.flock import FileLock
from aidlc_review.sensors import mypy_seed, tool_cache
from aidlc_review.sensors.context import (
    SensorContext,
    SensorError,
    TimedOut,
    nothing_to_check,
    select_tool,
)
from aidlc_review.sensors.described import run_with_described
from aidlc_review.sensors.mypy_scope import configured_files, in_scope
from aidlc_review.sensors.project_env import (
    Interpreter,
    interpreter_for,
    mypy_python_args,
    project_interpreter,
)
from aidlc_review.sensors.results import CheckFinding, CheckResult, judged
from aidlc_review.sensors.suppressions import Suppressions
from aidlc_review.sensors.tools import last_line, shown_command

_TEXT_LINE = re.compile(
    r"^(?P<file>[^:\n]+):(?P<line>-?\d+)(?::\d+)?: (?P<severity>error|note|warning): "
    r"(?P<message>.*?)(?:  \[(?P<code>[a-z0-9-]+)\])?$"
)
_JSON_FLAGS = ("--output", "json", "-O")


def run(ctx: SensorContext) -> CheckResult:
    """mypy on the claimed Python files; every other type checker the workspace configures
    (tsc...) through its descriptor (``sensors.described``)."""
    return run_with_described(ctx, _mypy_run)


def _mypy_run(ctx: SensorContext) -> CheckResult:
    scoped = in_scope(ctx.files, configured_files(ctx.workspace))
    if scoped != ctx.files:
        left = len(ctx.files) - len(scoped)
        ctx.progress(f"{ctx.name}: {left} claimed file(s) outside the project's mypy `files`")
        ctx.files = scoped  # the result counts what mypy was given
    if not ctx.files:
        return nothing_to_check(ctx)
    tool = select_tool(ctx)
    cache = ctx.scratch / "mypy-cache"
    marks = Suppressions(ctx.workspace, ctx.settings, tool.spec.suppressions)
    argv = [*tool.argv(), "--cache-dir", str(cache), *mypy_python_args(_project_python(ctx))]
    argv += _shadows(ctx, marks)
    ctx.checked = len(ctx.files)
    # Two reviews of one workspace (two units, or two runs) share the mypy cache,
    # and concurrent mypy processes on one cache can crash each other: take turns.
    lock = FileLock(str(ctx.scratch / "mypy-cache.lock"))
    with lock:
        if not tool_cache.trusted(cache):
            ctx.progress(f"{ctx.name}: mypy's cache did not match its seal: removed, cold start")
        try:
            if ctx.seeds is None:
                items = _mypy(ctx, argv)
            else:
                seed = mypy_seed.location(ctx.seeds, tool.version, tool.path)
                items = _mypy_from_seed(ctx, argv, cache, seed)
                ctx.keep_if_clean.append(lambda: _publish(lock, cache, seed))
        finally:
            tool_cache.seal(cache)  # as mypy left it: an edit after this is seen next time
    found: dict[str, list[CheckFinding]] = {}
    for finding in _findings(ctx, items):
        found.setdefault(finding.path, []).append(finding)
    return judged(
        ctx.name,
        [finding for items in marks.judge(found).values() for finding in items],
        shown_command(tool.argv(), ctx.files),
        tool=tool.spec.tool,
        tool_version=tool.version,
    )


def _shadows(ctx: SensorContext, marks: Suppressions) -> list[str]:
    """``--shadow-file`` arguments: each claimed file holding an added suppression is read
    from a copy without it (its lines where they were), kept in the scratch folder."""
    argv: list[str] = []
    folder = ctx.scratch / "shadows"
    shutil.rmtree(folder, ignore_errors=True)
    for path in ctx.files:
        added = {m.line: m for m in marks.marks(path) if m.added}
        if not added:
            continue
        lines = (ctx.workspace / path).read_text(encoding="utf-8").splitlines(keepends=True)
        for number, mark in added.items():
            lines[number - 1] = lines[number - 1].replace(mark.text, "", 1)
        shadow = folder / path
        shadow.parent.mkdir(parents=True, exist_ok=True)
        shadow.write_text("".join(lines), encoding="utf-8")
        argv += ["--shadow-file", path, str(shadow)]
    return argv


def _project_python(ctx: SensorContext) -> Interpreter | None:
    """Where the project's code runs (its test command's interpreter, else its venv, else
    PATH): mypy reads the installed packages and stubs from there, not from its own venv."""
    command = ctx.settings.get("coverage_command")
    found = interpreter_for(ctx.workspace, command) if command else None
    return found or project_interpreter(ctx.workspace)


def _mypy_from_seed(
    ctx: SensorContext, argv: list[str], cache: Path, seed: Path
) -> list[dict[str, Any]]:
    """mypy, its cache started from the machine's seed when it has none; a seeded run that
    fails drops the seed and runs again cold, so a bad seed costs one run, never a result."""
    if not mypy_seed.plant(seed, cache):
        return _mypy(ctx, argv)
    ctx.progress(f"{ctx.name}: mypy's cache starts from this machine's seed")
    try:
        return _mypy(ctx, argv)
    except TimedOut:
        raise  # a hang is the tool's, not the seed's: once is enough
    except SensorError as exc:
        ctx.progress(f"{ctx.name}: mypy failed with the seeded cache ({exc}); again without it")
        mypy_seed.discard(seed)
        shutil.rmtree(cache, ignore_errors=True)
        return _mypy(ctx, argv)


def _publish(lock: FileLock, cache: Path, seed: Path) -> None:
    with lock:  # a copy of a cache another run's mypy is writing would be torn
        mypy_seed.publish(cache, seed)


def _mypy(ctx: SensorContext, argv: list[str]) -> list[dict[str, Any]]:
    """mypy's items for the claimed files; SensorError when mypy could not decide."""
    run = ctx.run([*argv, "--", *ctx.files], announce=shown_command(argv, ctx.files))
    if run.returncode == 2 and "unrecognized arguments" in run.stderr and "--output" in argv:
        argv = _without_json(argv)  # an older mypy: read its classic text lines instead
        run = ctx.run([*argv, "--", *ctx.files])
        items = _parse_text(run.stdout)
    elif "--output" in argv:
        items = _parse_json(run.stdout)
    else:
        items = _parse_text(run.stdout)
    if run.returncode not in (0, 1, 2):
        raise SensorError(f"mypy exited {run.returncode}: {last_line(run.stderr or run.stdout)}")
    if run.returncode == 2 and not any(i.get("code") == "syntax" for i in items):
        first = items[0]["message"] if items else last_line(run.stderr or run.stdout)
        raise SensorError(f"mypy stopped: {first}")
    if run.returncode == 1 and not items:
        raise SensorError(f"mypy reported errors it did not list: {last_line(run.stdout)}")
    return items


def _without_json(argv: list[str]) -> list[str]:
    out: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
            continue
        if arg in ("--output", "-O"):
            skip = True
            continue
        out.append(arg)
    return out


def _parse_json(out: str) -> list[dict[str, Any]]:
    items = []
    for line in out.splitlines():
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError:
            raise SensorError(
                f"unreadable mypy output (expected JSON lines): {line[:200]}"
            ) from None
        if not isinstance(item, dict) or "file" not in item or "message" not in item:
            raise SensorError(f"unreadable mypy output: {line[:200]}")
        items.append(item)
    return items


def _parse_text(out: str) -> list[dict[str, Any]]:
    """mypy's classic lines; a note right after an error on the same line is that error's hint."""
    items: list[dict[str, Any]] = []
    for line in out.splitlines():
        match = _TEXT_LINE.match(line)
        if not match:
            continue
        item = {
            "file": match["file"],
            "line": int(match["line"]),
            "severity": match["severity"],
            "message": match["message"],
            "code": match["code"],
        }
        previous = items[-1] if items else None
        if (
            item["severity"] == "note"
            and previous
            and previous["severity"] == "error"
            and (previous["file"], previous["line"]) == (item["file"], item["line"])
        ):
            continue
        items.append(item)
    return items


def _findings(ctx: SensorContext, items: list[dict[str, Any]]) -> list[CheckFinding]:
    claimed = set(ctx.files)
    root = str(ctx.workspace) + "/"
    findings = []
    for item in items:
        path = str(item["file"]).removeprefix(root)
        if path not in claimed:
            continue
        code = item.get("code") or None
        severity = str(item.get("severity", "error"))
        key = code if code in ctx.runner.severity else severity
        line = item.get("line") if isinstance(item.get("line"), int) and item["line"] > 0 else None
        findings.append(
            ctx.finding(
                path,
                line,
                _quoted(item, code),
                code,
                key,
                "minor" if severity == "note" else "major",
            )
        )
    return findings


def _quoted(item: dict[str, Any], code: str | None) -> str:
    """mypy's message as mypy prints it: the hint after it, the error code last.

    No documentation link: the anchors of mypy's error code list are not derived
    from the codes, so a guessed link would be wrong as often as right.
    """
    message = str(item["message"])
    hint = item.get("hint")
    if isinstance(hint, str) and hint.strip():
        message += f" ({' '.join(hint.split())})"
    return f"{message} [{code}]" if code else message
