"""coverage: line + branch coverage of the claimed source from the unit's targeted tests.

The test command runs under ``coverage run`` (its data file goes to a scratch
directory, never the workspace), or an existing data file is read. The report is
asked for exactly the claimed source files, so a module the tests never imported
is analysed from its source and counts 0% instead of being left out. A file's
numbers are reused from the result cache while its content and the lines and arcs
the tests executed in it stay the same (``coverage_analysis``).

What keeps code out of this judgment (a ``# pragma: no cover``, a skip or xfail marker) counts
only if it stood at the unit's base: each one the change added, in a source or a test file,
is a finding at the severity of what it would hide (the descriptor's ``suppressions``).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aidlc_review.harness.definitions.sensor import ToolSpec
from aidlc_review.sensors.changed_lines import changed_lines
from aidlc_review.sensors.context import (
    SensorContext,
    SensorError,
    TimedOut,
    nothing_to_check,
    select_tool,
)
from aidlc_review.sensors.coverage_analysis import analyse_sources
from aidlc_review.sensors.coverage_findings import changed_coverage, judge, public, total_of
from aidlc_review.sensors.described import own_files
from aidlc_review.sensors.descriptors import own_test_runners, runner_module
from aidlc_review.sensors.globs import filter_matching
from aidlc_review.sensors.junit import FailedTest, failed_tests
from aidlc_review.sensors.project_env import (
    command_argv,
    coverage_argv,
    coverage_shim,
    interpreter_for,
    quoted_errors,
    runner_of_command,
    why_no_data,
)
from aidlc_review.sensors.results import CheckFinding, CheckResult, judged, skipped
from aidlc_review.sensors.suppressions import Suppressions, added_findings
from aidlc_review.sensors.test_runs import run_described_tests, runner_of
from aidlc_review.sensors.tools import ToolRun, last_line, shown_command


def run(ctx: SensorContext) -> CheckResult:
    command = ctx.settings.get("coverage_command")
    described = runner_of(ctx, command) if command else None
    if described is not None:  # a test runner known by its descriptor (vitest...)
        work = Path(tempfile.mkdtemp(prefix="run-", dir=ctx.scratch))
        try:
            return run_described_tests(ctx, described, command, work)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    ctx.files = own_files(ctx)  # the files the runner's own tool (coverage.py) measures
    excluded = set()
    for pattern in [*ctx.option("tests", []), *ctx.option("exclude", [])]:
        excluded.update(filter_matching(pattern, ctx.files))
    sources = [f for f in ctx.files if f not in excluded]
    if not sources:
        return nothing_to_check(ctx)
    ctx.checked = len(ctx.files)  # until the analysis says how many numbers it reused
    work = Path(tempfile.mkdtemp(prefix="run-", dir=ctx.scratch))
    try:
        return _measure(ctx, sources, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _measure(ctx: SensorContext, sources: list[str], work: Path) -> CheckResult:
    threshold = float(ctx.settings.get("coverage_threshold", ctx.option("threshold", 80)))
    if ctx.settings.get("coverage_data_file"):
        measured = _given_data(ctx)
    elif ctx.settings.get("coverage_command"):
        measured = _run_tests(ctx, work)
    else:
        return skipped(
            ctx.name,
            "no targeted test command (coverage_command) or coverage data "
            "file (coverage_data_file) configured",
            ctx.manifest.category,
        )
    report, reused = analyse_sources(
        ctx.workspace, measured.data_file, sources, ctx.cache, _config_file(ctx.workspace)
    )
    ctx.checked = len(ctx.files) - reused  # the tests always run; only the analysis is cached
    changed = None
    if ctx.settings.get("base_revision"):
        base = str(ctx.settings["base_revision"])
        changed = changed_coverage(
            report, base, changed_lines(ctx.workspace, base, sources, ctx.timeout)
        )
    # A test run that failed measures the breakage, not the tests: its coverage findings
    # would restate the failure (one defect, one finding); they are judged once it passes.
    findings = measured.findings or judge(ctx, sources, report, changed, threshold)
    findings = [*findings, *_added_suppressions(ctx)]
    details = {
        "threshold": threshold,
        "total": total_of(sources, report),
        "files": {f: public(report[f]) for f in sources if f in report},
    }
    if changed is not None:
        details["changed_lines"] = changed
    if measured.frames:
        details["frames"] = measured.frames  # what a static finding may explain (review)
    return judged(
        ctx.name,
        findings,
        measured.shown,
        tool="coverage",
        tool_version=measured.version,
        details=details,
    )


def _added_suppressions(ctx: SensorContext) -> list[CheckFinding]:
    specs = [s for tool in ctx.runner.tools if tool.format is None for s in tool.suppressions]
    return added_findings(ctx, Suppressions(ctx.workspace, ctx.settings, specs), ctx.files)


@dataclass
class _Measured:
    data_file: Path
    shown: str
    version: str
    findings: list[CheckFinding] = field(default_factory=list)
    frames: dict[str, list[list[Any]]] = field(default_factory=dict)  # failed test -> frames


def _given_data(ctx: SensorContext) -> _Measured:
    given = str(ctx.settings["coverage_data_file"])
    data_file = (ctx.workspace / given).resolve()
    if not data_file.is_file():
        raise SensorError(f"coverage data file not found: {given}")
    return _Measured(data_file, f"coverage report (data: {given})", _library_version())


def _run_tests(ctx: SensorContext, work: Path) -> _Measured:
    """The targeted tests under ``coverage run`` on the project's own interpreter (the one
    the test command resolves to); failing tests named from the test runner's report (its
    descriptor's ``report_args``)."""
    tool = select_tool(ctx)
    command = ctx.settings["coverage_command"]
    runner = runner_of_command(command, ctx.runner.tools)
    tests = _as_module(command, runner)
    shown = shown_command([*command_argv(command)], [])
    python = interpreter_for(ctx.workspace, command)
    if python is None:
        with_runner = f" with {_package(ctx, runner)}" if _package(ctx, runner) else ""
        raise SensorError(
            f"the targeted test command `{shown}`: no interpreter for it in the workspace's "
            f"venv or on PATH; create the project environment (a .venv{with_runner}) or put "
            "the command on PATH"
        )
    junit = work / "junit.xml" if runner is not None else None
    extra = [a.replace("{report}", str(junit)) for a in runner.report_args] if runner else []
    said = work / "coverage-version"
    head = coverage_argv(python.path, coverage_shim(work), said)
    data = work / ".coverage"
    argv = [*head, *tool.spec.argv[1:], f"--data-file={data}", *tests, *extra]
    try:
        run = ctx.run(
            argv, _activated(python.path), announce=f"{shown} under coverage on {python.path}"
        )
    except TimedOut:
        raise TimedOut(f"coverage timed out after {ctx.timeout:g}s") from None
    if not data.is_file() and not list(work.glob(".coverage.*")):
        raise SensorError(why_no_data(shown, python, run, runner))
    findings, frames = [], {}
    if run.returncode != 0:
        failed = failed_tests(junit) if junit else None
        findings = _failures(ctx, run, failed, runner)
        # each failed test's frames, by its finding (one per test, in the same order)
        pairs = zip(findings, failed or [], strict=False) if failed else ()
        frames = {f.fingerprint: [list(place) for place in t.frames] for f, t in pairs}
    version = f"coverage {said.read_text(encoding='utf-8')}" if said.is_file() else tool.version
    ran = shown_command([*tool.argv(), *tests], [])
    return _Measured(_combined(data), ran, version, findings, frames)


def _activated(python: Path) -> dict[str, str]:
    """The environment of an activated venv, so the tests' own ``python`` subprocesses
    run where the tests do."""
    env = {"PYTHONDONTWRITEBYTECODE": "1"}
    venv = python.parent.parent
    if (venv / "pyvenv.cfg").is_file():
        env["VIRTUAL_ENV"] = str(venv)
        env["PATH"] = os.pathsep.join([str(python.parent), os.environ.get("PATH", "")])
    return env


def _package(ctx: SensorContext, runner: ToolSpec | None) -> str | None:
    """The distribution the test runner comes in (the command's, else the first known)."""
    known = [runner] if runner is not None else own_test_runners(ctx.runner.tools)[:1]
    return next((spec.package or spec.tool for spec in known), None)


def _failures(
    ctx: SensorContext,
    run: ToolRun,
    failed: list[FailedTest] | None,
    runner: ToolSpec | None,
) -> list[CheckFinding]:
    """One finding per failing test (node ID, assertion message), else one for the run."""
    head = f"the targeted test command exited {run.returncode}: "
    rule = f"{ctx.name}/tests-failed"
    known = own_test_runners(ctx.runner.tools)
    # a command no runner is known by may still print a runner's words (a script calling it)
    speaker = runner or (known[0] if known else None)
    said = quoted_errors(run.stdout + "\n" + run.stderr, speaker.errors if speaker else [])
    by = speaker.tool if speaker is not None else ""
    if not failed:
        if runner is None:
            names = " or ".join(spec.tool for spec in known)
            unknown = f"not a {names} command" if names else "no known test runner"
        else:
            unknown = f"{by}'s report names none"
        tail = f"{by} said: {said}" if said else f"its last line: {_last(run)}"
        message = f"{head}the failing tests are unknown ({unknown}); {tail}"
        return [ctx.finding("", None, message, rule, "tests_failed", "major", identity="")]
    findings = []
    for test in failed:
        path = test.path if test.path in ctx.files else ""
        message = f"{head}{test.node_id} failed: {test.message}"
        if test.message == "collection failure" and said:
            message += f"; {by} said: {said}"  # the report's message names no cause
        findings.append(
            ctx.finding(
                path,
                test.line if path else None,
                message,
                rule,
                "tests_failed",
                "major",
                identity=test.node_id,
            )
        )
    return findings


def _last(run: ToolRun) -> str:
    return last_line(run.stdout or run.stderr, 200)


def _library_version() -> str:
    import coverage

    return f"coverage {coverage.__version__}"


def _as_module(command: Any, runner: ToolSpec | None) -> list[str]:
    """``pytest tests/x`` or ``python -m pytest tests/x`` -> ``-m pytest ...`` with the
    runner's descriptor's own arguments (``argv``); a script stays."""
    argv = command_argv(command)
    if not argv:
        raise SensorError("coverage_command is empty")
    module = runner_module(runner) if runner is not None else None
    if runner is not None and module is not None:
        if not Path(argv[0]).name.startswith("python"):
            argv = ["python", "-m", module, *argv[1:]]
        # the descriptor's argv keeps the runner's own cache out of the workspace under review
        return ["-m", module, *runner.argv[1:], *argv[3:]]
    head = Path(argv[0]).name
    if head.startswith("python") and len(argv) > 2 and argv[1] == "-m":
        return argv[1:]
    if head.startswith("python") and len(argv) > 1:
        return argv[1:]
    return argv


def _combined(data_file: Path) -> Path:
    """Workspaces with ``parallel = true`` leave ``.coverage.<suffix>`` files: combine them."""
    if data_file.is_file():
        return data_file
    parts = sorted(data_file.parent.glob(data_file.name + ".*"))
    if not parts:
        raise SensorError("the targeted test command wrote no coverage data")
    import coverage

    cov = coverage.Coverage(data_file=str(data_file), config_file=False, messages=False)
    cov.combine([str(p) for p in parts], keep=False)
    cov.save()
    return data_file


def _config_file(workspace: Path) -> str | bool:
    """The workspace's coverage config (exclusions, partial branches), found as coverage would."""
    rc = workspace / ".coveragerc"
    if rc.is_file():
        return str(rc)
    pyproject = workspace / "pyproject.toml"
    if pyproject.is_file() and "[tool.coverage" in pyproject.read_text(
        encoding="utf-8", errors="replace"
    ):
        return str(pyproject)
    return False
