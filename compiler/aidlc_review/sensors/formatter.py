"""formatter: the workspace's configured formatter, check-only, one finding per unformatted file.

The runner's own formatters (the Python ones: ``format`` None) run as their descriptors say:
check-only argv that never writes, caches the agents could write never read (a flag, or an
``env`` pointing the tool at a fresh empty folder each run), the report read by the parser
of its ``runner_format``. A finding is located at the first line the formatter would change
when its report says (a JSON location, the first hunk of a diff). Every other formatter the
workspace configures (prettier...) runs through its descriptor (``sensors.described``).
"""

from __future__ import annotations

from aidlc_review.sensors.context import (
    SensorContext,
    SensorError,
    run_file_local,
    select_tool,
)
from aidlc_review.sensors.described import run_with_described
from aidlc_review.sensors.formats import Hit
from aidlc_review.sensors.own_tool import config_names, read_batch, relative, tool_env
from aidlc_review.sensors.results import CheckFinding, CheckResult, judged
from aidlc_review.sensors.tools import shown_command


def run(ctx: SensorContext) -> CheckResult:
    """The workspace's own formatter on the claimed files it takes; every other formatter it
    configures (prettier...) through its descriptor (``sensors.described``)."""
    return run_with_described(ctx, _own)


def _own(ctx: SensorContext) -> CheckResult:
    tool = select_tool(ctx)
    with tool_env(ctx, tool.spec) as env:

        def check(batch: list[str]) -> dict[str, list[CheckFinding]]:
            return _known(_findings(ctx, read_batch(ctx, tool, batch, env)), batch)

        key = (tool.spec.model_dump(), tool.version)
        configs = config_names(tool.spec)
        findings = run_file_local(ctx, key, tool.spec.tool, configs, check)
    return judged(
        ctx.name,
        findings,
        shown_command(tool.argv(), ctx.files),
        tool=tool.spec.tool,
        tool_version=tool.version,
    )


def _findings(ctx: SensorContext, hits: list[Hit]) -> dict[str, list[CheckFinding]]:
    """A file the formatter would change is ``unformatted`` (minor), one it cannot format
    ``unparseable`` (major)."""
    found: dict[str, list[CheckFinding]] = {}
    for hit in hits:
        path = relative(ctx, hit.path)
        if hit.level == "unformatted":
            finding = ctx.finding(
                path,
                hit.line,
                "file is not formatted as the workspace's formatter requires",
                f"{ctx.name}/unformatted",
                "unformatted",
            )
        else:
            message = f"cannot be formatted: {hit.message or 'parse error'}"
            rule = f"{ctx.name}/unparseable"
            finding = ctx.finding(path, hit.line, message, rule, "unparseable", "major")
        found.setdefault(path, []).append(finding)
    return found


def _known(found: dict[str, list[CheckFinding]], batch: list[str]) -> dict[str, list[CheckFinding]]:
    """Refuse output naming files we never passed: it means we misread the tool."""
    strangers = sorted(set(found) - set(batch))
    if strangers:
        raise SensorError(f"formatter output names a file that was not checked: {strangers[0]}")
    return found
