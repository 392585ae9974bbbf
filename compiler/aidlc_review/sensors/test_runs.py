"""The unit's targeted test command run by a test runner the runtime knows by its descriptor.

A coverage tool candidate with ``runs`` (the programs a test command names it by, e.g.
``vitest``) and ``report_args`` (what makes it write a report in its ``format``, e.g. JUnit
XML, to ``{report}``) takes over a test command that names one of those programs. The
command runs as given (an ``npx``/``bunx`` prefix resolves to the workspace's own install:
the review never installs anything), with the report arguments added; each failed test is a
finding at its file, and a command that fails without naming a failed test is one too.
Coverage numbers of such runners are not read yet: the result says so.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from aidlc_review.harness.definitions.sensor import ToolSpec
from aidlc_review.sensors.context import SensorContext, ToolMissing
from aidlc_review.sensors.described import workspace_tool
from aidlc_review.sensors.formats import FILE_FORMATS, Hit
from aidlc_review.sensors.project_env import command_argv
from aidlc_review.sensors.results import CheckFinding, CheckResult, judged
from aidlc_review.sensors.suppressions import Suppressions, added_findings
from aidlc_review.sensors.tools import last_line, shown_command

LAUNCHERS = ("npx", "bunx", "pnpx")  # run a package's bin: only ever the workspace's own


def runner_of(ctx: SensorContext, command: object) -> ToolSpec | None:
    """The described test runner ``command`` runs, if any."""
    words = [PurePosixPath(w).name for w in command_argv(command)[:3]]
    for spec in ctx.runner.tools:
        if spec.runs and any(word in spec.runs for word in words):
            return spec
    return None


def run_described_tests(
    ctx: SensorContext, spec: ToolSpec, command: object, work: Path
) -> CheckResult:
    argv = _resolved(ctx, spec, command_argv(command))
    report = work / "report.xml"
    shown = shown_command(argv, [])
    extra = [arg.replace("{report}", str(report)) for arg in spec.report_args]
    run = ctx.run([*argv, *extra], announce=shown)
    ctx.checked = len(ctx.files)
    hits = FILE_FORMATS[spec.format or ""](report) if report.is_file() else []
    failed = [_failed_test(ctx, hit) for hit in hits]
    if run.returncode != 0 and not failed:
        said = last_line(run.stderr or run.stdout)
        message = f"the targeted test command `{shown}` exited {run.returncode}: {said}"
        failed.append(ctx.finding("", None, message, "tests-failed", "tests_failed", "major"))
    marks = Suppressions(ctx.workspace, ctx.settings, spec.suppressions)
    added = added_findings(ctx, marks, ctx.files)
    details = {"coverage": f"not measured: {spec.tool}'s coverage report is not read yet"}
    return judged(ctx.name, [*failed, *added], shown, tool=spec.tool, details=details)


def _resolved(ctx: SensorContext, spec: ToolSpec, argv: list[str]) -> list[str]:
    """The command with a launcher prefix replaced by the workspace's own install."""
    if argv and PurePosixPath(argv[0]).name in LAUNCHERS and len(argv) > 1:
        argv = argv[1:]
    program = PurePosixPath(argv[0]).name if argv else ""
    if program in spec.runs:
        found = workspace_tool(ctx, program)
        if found is None:
            raise ToolMissing(f"{program} is not installed in the workspace (node_modules/.bin)")
        return [str(found), *argv[1:]]
    return argv


def _failed_test(ctx: SensorContext, hit: Hit) -> CheckFinding:
    path = hit.path if (ctx.workspace / hit.path).is_file() else ""
    message = f"test {hit.rule} failed: {hit.message}"
    return ctx.finding(path, hit.line, message, "tests-failed", "tests_failed", "major")
