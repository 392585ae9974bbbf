"""A tool the runtime knows by its descriptor alone (``ToolSpec.format`` set).

It runs the descriptor's ``argv`` on the claimed files the descriptor takes (after ``--``),
or on the project (``takes: project``, tsc's ``-p``) keeping only what it reports on claimed
files, and reads the report with the parser of its format (``sensors.formats``). Rule ids
are ``<tool>:<rule>``; severities come from the runner's table by the report's level. A
suppression only counts as it stood at the unit's base (``sensors.suppressions``): where the
tool can be told to ignore them (``eslint --no-inline-config``) what an added one hides is
named; where it cannot (``// @ts-ignore``), the added suppression itself is the finding.
Tools are looked for in the workspace's own bin dirs first (``node_modules/.bin``, ``.venv/bin``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace
from itertools import zip_longest
from pathlib import Path, PurePosixPath

from aidlc_review.harness.definitions.sensor import ToolSpec
from aidlc_review.sensors.context import (
    SensorContext,
    SensorError,
    Tool,
    ToolMissing,
    cached_version,
    nothing_to_check,
)
from aidlc_review.sensors.formats import BOTH_STREAMS, TEXT_FORMATS, Hit
from aidlc_review.sensors.globs import filter_matching
from aidlc_review.sensors.own_tool import tool_env
from aidlc_review.sensors.results import CheckFinding, CheckResult, judged, make_finding, skipped
from aidlc_review.sensors.rule_severity import Overrides
from aidlc_review.sensors.suppressions import Suppressions, added_findings
from aidlc_review.sensors.tools import find_tool, last_line, shown_command

BIN_DIRS = ("node_modules/.bin", ".venv/bin")


def described_tools(ctx: SensorContext) -> list[tuple[Tool, list[str]]]:
    """Every described candidate the workspace configures and has installed, with the
    claimed files it takes (none: left out)."""
    from aidlc_review.sensors.context import is_detected

    chosen = []
    for spec in ctx.runner.tools:
        if spec.format is None or not is_detected(spec, ctx.workspace):
            continue
        files = filter_matching(spec.files, ctx.files) if spec.files else list(ctx.files)
        path = workspace_tool(ctx, spec.tool)
        if files and path is not None:
            chosen.append((Tool(spec, path, cached_version(ctx, path, spec.version)), files))
    return chosen + _declared_tools(ctx)


def _declared_tools(ctx: SensorContext) -> list[tuple[Tool, list[str]]]:
    """The tools the project declares for this check (settings ``tools``, read at the base),
    on the claimed files they name, whatever the manifest's ``matches``; one that is not
    installed is a ``ToolMissing``: a declared tool is never skipped quietly."""
    chosen = []
    for declared in ctx.settings.get("tools", []):
        if declared["check"] != ctx.name:
            continue
        program = PurePosixPath(declared["argv"][0]).name
        spec = ToolSpec(
            tool=program,
            argv=list(declared["argv"]),
            files=declared["files"],
            format=declared["format"],
            takes=declared["takes"],
        )
        files = filter_matching(spec.files or "", ctx.claimed)
        if not files:
            continue
        path = workspace_tool(ctx, program)
        if path is None:
            raise ToolMissing(
                f"{program}, which the project declares for {ctx.name}, is not installed"
            )
        chosen.append((Tool(spec, path, "declared"), files))
    return chosen


def run_with_described(
    ctx: SensorContext, own: Callable[[SensorContext], CheckResult]
) -> CheckResult:
    """A runner's check: its own tool (``own``) on the claimed files it takes, and every
    described tool the workspace configures on theirs, in one result."""
    others = described_tools(ctx)
    if not ctx.files and not others:
        return nothing_to_check(ctx)
    mine = own_files(ctx)
    if not others and not mine:
        return left_unjudged(ctx)
    result = judged(ctx.name, [])
    if mine:
        everything, ctx.files = ctx.files, mine
        try:
            result = own(ctx)
        finally:
            ctx.files = everything
    return with_described(ctx, result, others)


def left_unjudged(ctx: SensorContext) -> CheckResult:
    """Claimed files no configured tool of this check takes: said, never read as clean;
    a tool the workspace configures for them but has not installed is named."""
    from aidlc_review.sensors.context import is_detected

    absent = [
        spec.tool
        for spec in ctx.runner.tools
        if spec.format
        and is_detected(spec, ctx.workspace)
        and filter_matching(spec.files or "**", ctx.files)
    ]
    if absent:
        return skipped(
            ctx.name,
            f"no {ctx.name} ran for {len(ctx.files)} claimed file(s): the workspace configures "
            f"{', '.join(absent)} but has not installed it (looked in "
            f"{', '.join(BIN_DIRS)} and PATH; the review never installs anything)",
            ctx.manifest.category,
        )
    looked = sorted({e for spec in ctx.runner.tools if spec.format for e in spec.detect[:3]})
    return skipped(
        ctx.name,
        f"no {ctx.name} ran for {len(ctx.files)} claimed file(s): the workspace configures "
        f"none of its tools for them (looked for {', '.join(looked)}, ...)",
        ctx.manifest.category,
    )


def own_files(ctx: SensorContext) -> list[str]:
    """The claimed files the runner's own (undescribed) tool takes: its ``files`` glob."""
    own = [spec for spec in ctx.runner.tools if spec.format is None]
    if not own:
        return []
    return filter_matching(own[0].files, ctx.files) if own[0].files else list(ctx.files)


def with_described(
    ctx: SensorContext, result: CheckResult, tools: list[tuple[Tool, list[str]]]
) -> CheckResult:
    """``result`` (the runner's own tool's) with each described tool's findings added."""
    if not tools:
        return result
    findings: list[CheckFinding] = []
    outside: list[str] = []
    commands = [result.command] if result.command else []
    for tool, files in tools:
        found, elsewhere = check_described(ctx, tool, files)
        findings += found
        if elsewhere:
            outside.append(f"{elsewhere} {tool.spec.tool} finding(s) outside the unit's files")
        commands.append(shown_command(tool.argv(), files if tool.spec.takes == "files" else []))
    ctx.checked += sum(len(files) for _, files in tools)
    named = [result.tool] if result.tool else []
    tools_said = ", ".join([*named, *(t.spec.tool for t, _ in tools)])
    details = {**result.details, **({"outside_unit": outside} if outside else {})}
    return judged(
        ctx.name,
        [*result.findings, *findings],
        "; ".join(commands),
        tool=tools_said,
        details=details,
    )


def workspace_tool(ctx: SensorContext, name: str) -> Path | None:
    """The workspace's own install of a tool first, then PATH (``tool_path`` pins it)."""
    pinned = ctx.settings.get("tool_path")
    if pinned is not None:
        return find_tool(name, pinned)
    local = os.pathsep.join(str(ctx.workspace / folder) for folder in BIN_DIRS)
    return find_tool(name, local) or find_tool(name)


def check_described(
    ctx: SensorContext, tool: Tool, files: list[str]
) -> tuple[list[CheckFinding], int]:
    """The tool's findings on ``files``, suppressions judged by the base, and how many it
    reported on other files (a project-wide tool's errors outside the unit: counted, not
    judged)."""
    spec = tool.spec
    argv = tool.argv() + (["--", *files] if spec.takes == "files" else [])
    with tool_env(ctx, spec) as env:
        run = ctx.run(argv, env)
    parse = TEXT_FORMATS.get(spec.format or "")
    if parse is None:
        raise SensorError(f"{spec.tool}: no parser for the format {spec.format!r}")
    both = spec.format in BOTH_STREAMS  # diagnostics on stderr, as compilers write them
    hits = parse(f"{run.stdout}\n{run.stderr}" if both else run.stdout)
    if not hits and run.returncode not in spec.exit_codes:
        said = last_line(run.stderr or run.stdout)
        raise SensorError(f"{spec.tool} exited {run.returncode}: {said}")
    if run.returncode == 1 and not hits and spec.takes == "project" and run.stdout.strip():
        raise SensorError(f"{spec.tool} failed without a report: {last_line(run.stdout)}")
    if run.returncode != 0 and not hits and run.stderr.strip():
        # "found something" and nothing found, with a complaint: prettier that cannot load
        # its configuration exits 1, as it does for files it would change
        raise SensorError(f"{spec.tool} exited {run.returncode} without a report: "
                          f"{last_line(run.stderr)}")  # fmt: skip
    hits = at_first_change(ctx, tool, hits)
    wanted = set(files)
    overrides = Overrides.from_settings(ctx.settings.get("severity"))
    found: dict[str, list[CheckFinding]] = {}
    outside = 0
    for hit in hits:
        path = _relative(ctx.workspace, hit.path)
        if path not in wanted:
            outside += 1  # only claimed files count; the others are only counted
            continue
        rule = spec.finding_rule(hit.rule)
        default = ctx.severity(hit.level, "major" if hit.level == "error" else "minor")
        level = overrides.tuned(rule, path, default)
        if level == "off":
            continue
        if ctx.manifest.severity_class == "advisory":
            level = "minor"  # an advisory sensor never blocks on its findings
        message = f"{hit.rule} {hit.message}" if hit.rule else hit.message
        finding = make_finding(
            ctx.name, level, ctx.manifest.category, path, hit.line, message, rule
        )
        found.setdefault(path, []).append(finding)
    marks = Suppressions(ctx.workspace, ctx.settings, spec.suppressions)
    judged = [f for items in marks.judge(found).values() for f in items]
    return judged + _unjudgeable(ctx, tool, files, marks), outside


LOCATED_AT_MOST = 20  # files a formatter lists that are located by formatting each again


def at_first_change(ctx: SensorContext, tool: Tool, hits: list[Hit]) -> list[Hit]:
    """A formatter's file-level hits, each at the first line it would change: its
    descriptor's ``formatted`` argv prints the file as it would format it (one run per
    listed file, for the first ``LOCATED_AT_MOST``); what it prints is compared, never kept."""
    if not tool.spec.formatted:
        return hits
    located: list[Hit] = []
    for hit in hits:
        if hit.line is None and len(located) < LOCATED_AT_MOST:
            hit = replace(hit, line=_first_change(ctx, tool, _relative(ctx.workspace, hit.path)))
        located.append(hit)
    return located


def _first_change(ctx: SensorContext, tool: Tool, path: str) -> int | None:
    try:
        source = (ctx.workspace / path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    argv = [str(tool.path), *tool.spec.formatted[1:], "--", path]
    with tool_env(ctx, tool.spec) as env:
        run = ctx.run(argv, env)
    if run.returncode != 0:
        return None  # the file-level finding stands
    pairs = zip_longest(source, run.stdout.splitlines())
    return next((n for n, (mine, its) in enumerate(pairs, 1) if mine != its), None)


def _unjudgeable(
    ctx: SensorContext, tool: Tool, files: list[str], marks: Suppressions
) -> list[CheckFinding]:
    """Added suppressions the tool cannot be told to ignore: each is a finding of its own,
    at the severity of an error of the tool (what it would hide)."""
    blind = [s for s in tool.spec.suppressions if s.severity is not None]
    return added_findings(ctx, marks, files, blind) if blind else []


def _relative(workspace: Path, reported: str) -> str:
    path = Path(reported)
    if path.is_absolute():
        try:
            return path.resolve().relative_to(workspace.resolve()).as_posix()
        except ValueError:
            return reported
    return path.as_posix().removeprefix("./")
