"""coverage: line + branch coverage of the claimed source from the unit's targeted tests.

The test command runs under ``coverage run`` (its data file goes to a scratch
directory, never the workspace), or an existing data file is read. The report is
asked for exactly the claimed source files, so a module the tests never imported
is analysed from its source and counts 0% instead of being left out. A file's
numbers are reused from the result cache while its content and the lines and arcs
the tests executed in it stay the same (``coverage_analysis``).
"""

from __future__ import annotations

import shlex
import shutil
import tempfile
from pathlib import Path
from typing import Any

from aidlc_review.sensors.changed_lines import changed_lines
from aidlc_review.sensors.context import (
    SensorContext,
    SensorError,
    nothing_to_check,
    select_tool,
)
from aidlc_review.sensors.coverage_analysis import Report, analyse_sources, percent
from aidlc_review.sensors.globs import filter_matching
from aidlc_review.sensors.results import CheckFinding, CheckResult, judged, skipped
from aidlc_review.sensors.tools import last_line, shown_command


def run(ctx: SensorContext) -> CheckResult:
    excluded = set()
    for pattern in ctx.option("exclude", []):
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
    findings: list[CheckFinding] = []
    given = ctx.settings.get("coverage_data_file")
    command_text = ctx.settings.get("coverage_command")
    tool_name, version = "coverage", _library_version()
    if given:
        data_file = (ctx.workspace / str(given)).resolve()
        if not data_file.is_file():
            raise SensorError(f"coverage data file not found: {given}")
        shown = f"coverage report (data: {given})"
    elif command_text:
        tool = select_tool(ctx)
        version = tool.version
        tests = _as_module(command_text)
        argv = [*tool.argv(), f"--data-file={work / '.coverage'}", *tests]
        run = ctx.run(argv, {"PYTHONDONTWRITEBYTECODE": "1"})
        shown = shown_command([*tool.argv(), *tests], [])
        if run.returncode != 0:
            findings.append(
                ctx.finding(
                    "",
                    None,
                    f"the targeted test command exited {run.returncode}: "
                    f"{last_line(run.stdout or run.stderr, 200)}",
                    f"{ctx.name}/tests-failed",
                    "tests_failed",
                    "major",
                    identity="",
                )
            )
        data_file = _combined(work / ".coverage")
    else:
        return skipped(
            ctx.name,
            "no targeted test command (coverage_command) or coverage data "
            "file (coverage_data_file) configured",
            ctx.manifest.category,
        )
    report, reused = analyse_sources(
        ctx.workspace, data_file, sources, ctx.cache, _config_file(ctx.workspace)
    )
    ctx.checked = len(ctx.files) - reused  # the tests always run; only the analysis is cached
    changed = None
    if ctx.settings.get("base_revision"):
        changed = _changed_coverage(ctx, sources, report, str(ctx.settings["base_revision"]))
    findings += _judge(ctx, sources, report, changed, threshold)
    result = judged(ctx.name, findings, shown, tool=tool_name, tool_version=version)
    details = {
        "threshold": threshold,
        "total": _total(sources, report),
        "files": {f: _public(report[f]) for f in sources if f in report},
    }
    if changed is not None:
        details["changed_lines"] = changed
    return CheckResult(
        result.name,
        result.status,
        None,
        result.command,
        0,
        result.findings,
        result.tool,
        result.tool_version,
        details,
    )


def _library_version() -> str:
    import coverage

    return f"coverage {coverage.__version__}"


def _as_module(command: Any) -> list[str]:
    """``pytest tests/x`` or ``python -m pytest tests/x`` -> ``-m pytest ...``; a script stays."""
    argv = shlex.split(command) if isinstance(command, str) else [str(a) for a in command]
    if not argv:
        raise SensorError("coverage_command is empty")
    if Path(argv[0]).name in ("pytest", "py.test"):
        argv = ["python", "-m", "pytest", *argv[1:]]
    head = Path(argv[0]).name
    if head.startswith("python") and argv[1:3] == ["-m", "pytest"]:
        # pytest's own cache would otherwise be written into the workspace under review
        return ["-m", "pytest", "-p", "no:cacheprovider", *argv[3:]]
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


def _public(entry: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in entry.items() if k not in ("executed", "missing")}


def _total(sources: list[str], report: Report) -> dict[str, Any]:
    keys = ("statements", "covered_lines", "branches", "covered_branches")
    sums = {k: sum(report[f][k] for f in sources if f in report) for k in keys}
    sums["percent"] = percent(
        sums["covered_lines"] + sums["covered_branches"], sums["statements"] + sums["branches"]
    )
    return sums


def _changed_coverage(
    ctx: SensorContext, sources: list[str], report: Report, base: str
) -> dict[str, Any]:
    changed = changed_lines(ctx.workspace, base, sources, ctx.timeout)
    statements = covered = 0
    for path, lines in changed.items():
        entry = report.get(path)
        if entry is None:
            continue
        executed, missing = set(entry["executed"]), set(entry["missing"])
        statements += len(lines & (executed | missing))
        covered += len(lines & executed)
    return {
        "base": base,
        "statements": statements,
        "covered_lines": covered,
        "percent": percent(covered, statements),
    }


def _judge(
    ctx: SensorContext,
    sources: list[str],
    report: Report,
    changed: dict[str, Any] | None,
    threshold: float,
) -> list[CheckFinding]:
    findings = []
    for path in sources:
        entry = report.get(path)
        if entry is None or entry["percent"] >= threshold:
            continue
        never = not entry["executed"]
        what = "never executed by the targeted tests" if never else "below the threshold"
        findings.append(
            ctx.finding(
                path,
                None,
                f"coverage {entry['percent']:g}% < {threshold:g}%: {what} "
                f"({entry['covered_lines']}/{entry['statements']} lines, "
                f"{entry['covered_branches']}/{entry['branches']} branches)",
                f"{ctx.name}/file-below-threshold",
                "file_below_threshold",
                "minor",
                identity="",
            )
        )
    total = _total(sources, report)
    if total["percent"] < threshold:
        findings.append(
            ctx.finding(
                "",
                None,
                f"coverage of the claimed source {total['percent']:g}% < {threshold:g}% "
                f"({total['covered_lines']}/{total['statements']} lines, "
                f"{total['covered_branches']}/{total['branches']} branches)",
                f"{ctx.name}/total-below-threshold",
                "total_below_threshold",
                "major",
                identity="",
            )
        )
    if changed and changed["statements"] and changed["percent"] < threshold:
        findings.append(
            ctx.finding(
                "",
                None,
                f"coverage of the lines changed since {changed['base']} "
                f"{changed['percent']:g}% < {threshold:g}% "
                f"({changed['covered_lines']}/{changed['statements']} lines)",
                f"{ctx.name}/changed-below-threshold",
                "changed_below_threshold",
                "major",
                identity="",
            )
        )
    return findings
