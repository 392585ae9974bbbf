"""type-check: the runner's own type checker on the claimed files, as its descriptor says;
only errors located in claimed files become findings.

Whole-program, so not cached per file: an edit to one module can change the errors reported
in another. The tool's own incremental cache (``flags.cache``, kept in our scratch directory,
never the workspace, and sealed: ``tool_cache``) makes re-runs cheap instead, and, where the
manifest says it may be seeded (``options.seed``), a workspace's first run starts from the
machine's seed of that cache (``incremental_seed``).

The report is read by the parser of its format (``runner_format``; the runner's option
``fallback_format`` when the installed version refuses the ``report`` flags:
``format_diagnostics``); an exit code outside its ``exit_codes`` could not verify. Only the
inline suppressions that stood at the unit's base are honoured (``suppressions``): the tool
reads each claimed file holding one the change added from a shadow copy without it
(``flags.shadow``), and what it then reports there is hidden by it. Every other type checker
the workspace configures (tsc...) runs through its descriptor (``sensors.described``).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from aidlc_review.flock import FileLock
from aidlc_review.sensors import incremental_seed, tool_cache
from aidlc_review.sensors.config_scope import configured_files, in_scope, scope_of
from aidlc_review.sensors.context import (
    SensorContext,
    SensorError,
    TimedOut,
    Tool,
    nothing_to_check,
    select_tool,
)
from aidlc_review.sensors.described import run_with_described
from aidlc_review.sensors.format_diagnostics import DIAGNOSTIC_FORMATS, Diagnostic
from aidlc_review.sensors.project_env import Interpreter, interpreter_for, project_interpreter
from aidlc_review.sensors.results import CheckFinding, CheckResult, judged
from aidlc_review.sensors.suppressions import Suppressions
from aidlc_review.sensors.tools import last_line, shown_command


def run(ctx: SensorContext) -> CheckResult:
    """The runner's own tool on the claimed files it takes; every described type checker the
    workspace configures (tsc...) through its descriptor (``sensors.described``)."""
    return run_with_described(ctx, _own_run)


def _own_run(ctx: SensorContext) -> CheckResult:
    scope = scope_of(ctx.option("scope"))
    scoped = in_scope(ctx.files, configured_files(ctx.workspace, scope))
    if scoped != ctx.files and scope is not None:
        left = len(ctx.files) - len(scoped)
        owner = next(spec.tool for spec in ctx.runner.tools if spec.format is None)
        said = f"{owner} `{scope.key}`"
        ctx.progress(f"{ctx.name}: {left} claimed file(s) outside the project's {said}")
        ctx.files = scoped  # the result counts what the tool was given
    if not ctx.files:
        return nothing_to_check(ctx)
    tool = select_tool(ctx)
    name = tool.spec.tool
    cache = tool_cache.cache_of(ctx.scratch, name)
    marks = Suppressions(ctx.workspace, ctx.settings, tool.spec.suppressions)
    argv = [*tool.argv(), *_flag(tool, "cache", cache=str(cache)), *_python(ctx, tool)]
    argv += _shadows(ctx, tool, marks)
    ctx.checked = len(ctx.files)
    lock = tool_cache.lock_of(ctx.scratch)
    with lock:
        if not tool_cache.trusted(cache):
            ctx.progress(f"{ctx.name}: {name}'s cache did not match its seal: removed, cold start")
        try:
            if ctx.seeds is None or not ctx.option("seed", False):
                hits = _checked(ctx, tool, argv)
            else:
                seed = incremental_seed.location(ctx.seeds, name, tool.version, tool.path)
                hits = _checked_from_seed(ctx, tool, argv, cache, seed)
                ctx.keep_if_clean.append(lambda: _publish(lock, cache, seed))
        finally:
            tool_cache.seal(cache)  # as the tool left it: an edit after this is seen next time
    found: dict[str, list[CheckFinding]] = {}
    for finding in _findings(ctx, hits):
        found.setdefault(finding.path, []).append(finding)
    return judged(
        ctx.name,
        [finding for items in marks.judge(found).values() for finding in items],
        shown_command(tool.argv(), ctx.files),
        tool=name,
        tool_version=tool.version,
    )


def _flag(tool: Tool, key: str, **values: str) -> list[str]:
    """The descriptor's ``flags[key]`` with its placeholders filled; none when it has none."""
    parts = list(tool.spec.flags.get(key, []))
    for name, value in values.items():
        parts = [part.replace("{" + name + "}", value) for part in parts]
    return parts


def _python(ctx: SensorContext, tool: Tool) -> list[str]:
    """``flags.python`` naming where the project's code runs (its test command's interpreter,
    else its venv, else PATH): the tool reads the installed packages and stubs from there,
    not from its own venv."""
    command = ctx.settings.get("coverage_command")
    found: Interpreter | None = interpreter_for(ctx.workspace, command) if command else None
    found = found or project_interpreter(ctx.workspace)
    return _flag(tool, "python", python=str(found.path)) if found else []


def _shadows(ctx: SensorContext, tool: Tool, marks: Suppressions) -> list[str]:
    """``flags.shadow`` for each claimed file holding an added suppression: read from a copy
    without it (its lines where they were), kept in the scratch folder."""
    argv: list[str] = []
    folder = ctx.scratch / "shadows"
    shutil.rmtree(folder, ignore_errors=True)
    for path in ctx.files:
        added = {m.line: m for m in marks.marks(path) if m.added}
        if not added:
            continue
        if "shadow" not in tool.spec.flags:
            raise SensorError(
                f"{path}: the change adds a suppression and {tool.spec.tool} has no "
                "flag to read the file without it (flags.shadow)"
            )
        lines = (ctx.workspace / path).read_text(encoding="utf-8").splitlines(keepends=True)
        for number, mark in added.items():
            lines[number - 1] = lines[number - 1].replace(mark.text, "", 1)
        shadow = folder / path
        shadow.parent.mkdir(parents=True, exist_ok=True)
        shadow.write_text("".join(lines), encoding="utf-8")
        argv += _flag(tool, "shadow", path=path, shadow=str(shadow))
    return argv


def _checked_from_seed(
    ctx: SensorContext, tool: Tool, argv: list[str], cache: Path, seed: Path
) -> list[Diagnostic]:
    """The tool's report, its cache started from the machine's seed when it has none; a
    seeded run that fails drops the seed and runs again cold, so a bad seed costs one run,
    never a result."""
    name = tool.spec.tool
    if not incremental_seed.plant(seed, cache):
        return _checked(ctx, tool, argv)
    ctx.progress(f"{ctx.name}: {name}'s cache starts from this machine's seed")
    try:
        return _checked(ctx, tool, argv)
    except TimedOut:
        raise  # a hang is the tool's, not the seed's: once is enough
    except SensorError as exc:
        ctx.progress(f"{ctx.name}: {name} failed with the seeded cache ({exc}); again without it")
        incremental_seed.discard(seed)
        shutil.rmtree(cache, ignore_errors=True)
        return _checked(ctx, tool, argv)


def _publish(lock: FileLock, cache: Path, seed: Path) -> None:
    with lock:  # a copy of a cache another run's tool is writing would be torn
        incremental_seed.publish(cache, seed)


def _read(tool: Tool, format_name: str | None, report: str) -> list[Diagnostic]:
    """The report read by its format's parser; an unreadable one names the tool (could not
    verify)."""
    parse = DIAGNOSTIC_FORMATS.get(str(format_name))
    if parse is None:
        raise SensorError(f"{tool.spec.tool}: no parser for the format {format_name!r}")
    try:
        return parse(report)
    except SensorError as exc:
        raise SensorError(f"{tool.spec.tool}: {exc}") from None


def _checked(ctx: SensorContext, tool: Tool, argv: list[str]) -> list[Diagnostic]:
    """The tool's hits for the claimed files; SensorError when it could not decide."""
    name = tool.spec.tool
    report = tool.spec.flags.get("report", [])
    run = ctx.run([*argv, "--", *ctx.files], announce=shown_command(argv, ctx.files))
    if run.returncode == 2 and "unrecognized arguments" in run.stderr and report:
        argv = _without(argv, report)  # an older version: read its fallback format instead
        run = ctx.run([*argv, "--", *ctx.files])
        hits = _read(tool, ctx.option("fallback_format"), run.stdout)
    else:
        hits = _read(tool, tool.spec.runner_format, run.stdout)
    if run.returncode not in tool.spec.exit_codes:
        raise SensorError(f"{name} exited {run.returncode}: {last_line(run.stderr or run.stdout)}")
    if run.returncode == 2 and not any(hit.rule == "syntax" for hit in hits):
        first = hits[0].message if hits else last_line(run.stderr or run.stdout)
        raise SensorError(f"{name} stopped: {first}")
    if run.returncode == 1 and not hits:
        raise SensorError(f"{name} reported errors it did not list: {last_line(run.stdout)}")
    return hits


def _without(argv: list[str], flags: list[str]) -> list[str]:
    """``argv`` without each run of ``flags`` (``--output json``), wherever it stands."""
    out: list[str] = []
    start = 0
    while start < len(argv):
        if flags and argv[start : start + len(flags)] == flags:
            start += len(flags)
            continue
        out.append(argv[start])
        start += 1
    return out


def _findings(ctx: SensorContext, hits: list[Diagnostic]) -> list[CheckFinding]:
    """A finding per hit on a claimed file, its rule the tool's own code (the ledger's
    stable ids), its message as the tool prints it with the code last.

    No documentation link: the anchors of a type checker's error code list are not derived
    from the codes, so a guessed link would be wrong as often as right.
    """
    claimed = set(ctx.files)
    root = str(ctx.workspace) + "/"
    findings = []
    for hit in hits:
        path = hit.path.removeprefix(root)
        if path not in claimed:
            continue
        key = hit.rule if hit.rule in ctx.runner.severity else hit.level
        line = hit.line if hit.line is not None and hit.line > 0 else None
        message = f"{hit.said} [{hit.rule}]" if hit.rule else hit.said
        default = "minor" if hit.level == "note" else "major"
        findings.append(ctx.finding(path, line, message, hit.rule, key, default))
    return findings
