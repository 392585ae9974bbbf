"""The unit's targeted test command run by a test runner the runtime knows by its descriptor.

A coverage tool candidate with ``runs`` (the programs a test command names it by, e.g.
``vitest``, or a program and the flags that make it a test runner, ``node --test``) and
``report_args`` (what makes it write a report in its ``format``, JUnit XML or jest's JSON,
to ``{report}``) takes over a test command that names it. The command runs as given (an
``npx``/``bunx`` prefix resolves to the workspace's own install: the review never installs
anything), the report arguments put right after the program (node reads options only
before its test files); each failed test is a finding at its file and line, naming it, and
a command that fails without naming a failed test is one too.

Coverage: the descriptor's ``coverage_args`` make the runner write a report in a standard
format (lcov, istanbul JSON...) into the run's scratch folder, never the workspace, for the
claimed source files (``{source}``). It is read by the parser of that format
(``sensors.coverage_formats``) and judged exactly as coverage.py's numbers are: total,
per file and changed lines against the threshold. A runner whose coverage needs a package
the workspace has not installed (``coverage_packages``) says coverage was not measured and
names it: a named skip, never a pass. A failing run's coverage is not judged (it measures
the breakage; one defect, one finding).
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath
from typing import Any

from aidlc_review.harness.definitions.sensor import ToolSpec
from aidlc_review.sensors.changed_lines import changed_lines
from aidlc_review.sensors.context import SensorContext, SensorError, ToolMissing
from aidlc_review.sensors.coverage_findings import changed_coverage, judge, public, total_of
from aidlc_review.sensors.coverage_formats import COVERAGE_FORMATS, workspace_path
from aidlc_review.sensors.described import workspace_tool
from aidlc_review.sensors.formats import FILE_FORMATS, Hit
from aidlc_review.sensors.globs import filter_matching
from aidlc_review.sensors.project_env import command_argv
from aidlc_review.sensors.results import CheckFinding, CheckResult, judged, skipped
from aidlc_review.sensors.suppressions import Suppressions, added_findings
from aidlc_review.sensors.tools import last_line, shown_command

LAUNCHERS = ("npx", "bunx", "pnpx")  # run a package's bin: only ever the workspace's own


def runner_of(ctx: SensorContext, command: object) -> ToolSpec | None:
    """The described test runner ``command`` runs, if any: a descriptor's, or one the
    project declares (settings ``tools`` with check ``coverage``: ``go test``...)."""
    argv = command_argv(command)
    for spec in [*ctx.runner.tools, *_declared_runners(ctx)]:
        # a runner with no ``format`` runs under the coverage runner's own tool instead
        if spec.format is not None and any(_names(entry, argv) for entry in spec.runs):
            return spec
    return None


def _declared_runners(ctx: SensorContext) -> list[ToolSpec]:
    """The project's declared test runners (read at the base), as descriptors."""
    return [
        ToolSpec(
            tool=PurePosixPath(declared["argv"][0]).name,
            argv=list(declared["argv"]),
            files=declared["files"],
            format=declared["format"],
            runs=[" ".join(declared["argv"])],
            report_args=list(declared["report_args"]),
            coverage_args=list(declared["coverage_args"]),
            coverage_format=declared["coverage_format"],
            coverage_report=declared["coverage_report"],
        )
        for declared in ctx.settings.get("tools", [])
        if declared["check"] == ctx.name
    ]


def _names(entry: str, argv: list[str]) -> bool:
    """``vitest`` names ``npx vitest run``; ``node --test`` names ``node --test tests/``."""
    program, *flags = entry.split()
    words = [PurePosixPath(w).name for w in argv[:3]]
    return program in words and all(flag in argv for flag in flags)


def run_described_tests(
    ctx: SensorContext, spec: ToolSpec, command: object, work: Path
) -> CheckResult:
    argv = _resolved(ctx, spec, command_argv(command))
    shown = shown_command(argv, [])
    if spec.files:  # a declared runner takes its files whatever the manifest's `matches`
        ctx.files = filter_matching(spec.files, ctx.claimed)
    sources = _sources(ctx, spec)
    coverage, unmeasured = _coverage_args(ctx, spec, sources, work / "coverage")
    report = work / "report"
    extra = [arg.replace("{report}", str(report)) for arg in spec.report_args]
    at = _after_runner(spec, argv)  # `go test -json ...`, `node --test --test-reporter ...`
    run = ctx.run([*argv[:at], *extra, *coverage, *argv[at:]], announce=shown)
    ctx.checked = len(ctx.files)
    if not any("{report}" in arg for arg in spec.report_args):
        report.write_text(run.stdout, encoding="utf-8")  # the runner prints its report
    hits = FILE_FORMATS[spec.format or ""](report) if report.is_file() else []
    failed = [_failed_test(ctx, hit) for hit in hits]
    # the places each failure names (its own, and any `path:line` its message quotes, as
    # ts-jest quotes the tsc error that stopped a suite): what a static finding may explain
    frames = {f.fingerprint: _places(ctx, hit) for f, hit in zip(failed, hits, strict=True)}
    if run.returncode != 0 and not failed:
        said = last_line(run.stderr or run.stdout)
        message = f"the targeted test command `{shown}` exited {run.returncode}: {said}"
        failed.append(ctx.finding("", None, message, "tests-failed", "tests_failed", "major"))
    marks = Suppressions(ctx.workspace, ctx.settings, spec.suppressions)
    added = added_findings(ctx, marks, ctx.files)
    said_by = {"tool": spec.tool}
    if failed:
        details = {"coverage": "not judged: the targeted tests failed", "frames": frames}
        return judged(ctx.name, [*failed, *added], shown, details=details, **said_by)
    if unmeasured is not None:
        if added:
            return judged(ctx.name, added, shown, details={"coverage": unmeasured}, **said_by)
        return skipped(
            ctx.name, unmeasured, ctx.manifest.category, required=ctx.runner.required,
            command=shown, **said_by,
        )  # fmt: skip
    found, details = _judged_coverage(ctx, spec, sources, work / "coverage", shown)
    return judged(ctx.name, [*found, *added], shown, details=details, **said_by)


def _after_runner(spec: ToolSpec, argv: list[str]) -> int:
    """Where the report arguments go: after the program and the words that make it this
    runner (``go test``, ``node --test``), before the command's own arguments."""
    words = {word for entry in spec.runs for word in entry.split()[1:]}
    at = 1
    while at < len(argv) and argv[at] in words:
        at += 1
    return at


def _resolved(ctx: SensorContext, spec: ToolSpec, argv: list[str]) -> list[str]:
    """The command with a launcher prefix replaced by the workspace's own install."""
    if argv and PurePosixPath(argv[0]).name in LAUNCHERS and len(argv) > 1:
        argv = argv[1:]
    if not argv:
        raise SensorError("coverage_command is empty")
    program = PurePosixPath(argv[0]).name
    if program in {entry.split()[0] for entry in spec.runs}:
        found = workspace_tool(ctx, program)
        if found is None:
            raise ToolMissing(
                f"{program} is not installed in the workspace (node_modules/.bin) or on PATH"
            )
        return [str(found), *argv[1:]]
    return argv


def _sources(ctx: SensorContext, spec: ToolSpec) -> list[str]:
    """The claimed files the runner measures: those it takes, without the ``tests`` (and
    what ``exclude`` matches)."""
    taken = filter_matching(spec.files, ctx.files) if spec.files else list(ctx.files)
    excluded: set[str] = set()
    for pattern in [*ctx.option("tests", []), *ctx.option("exclude", [])]:
        excluded.update(filter_matching(pattern, taken))
    return [path for path in taken if path not in excluded]


def _coverage_args(
    ctx: SensorContext, spec: ToolSpec, sources: list[str], folder: Path
) -> tuple[list[str], str | None]:
    """The arguments that make the runner measure ``sources`` into ``folder``, or why it
    cannot (no claimed source; no coverage provider installed)."""
    if not spec.coverage_format:
        return [], f"not measured: {spec.tool}'s descriptor names no coverage report"
    if not sources:
        return [], "not measured: the unit claims no source file the tests could cover"
    provider: list[str] | None = [] if not spec.coverage_packages else None
    for package, args in spec.coverage_packages.items():
        if (ctx.workspace / package).exists():
            provider = list(args)
            break
    if provider is None:
        names = " or ".join(spec.coverage_packages)
        return [], (
            f"coverage not measured: {spec.tool} has no coverage provider installed in the "
            f"workspace ({names}); the targeted tests ran, the review never installs anything"
        )
    folder.mkdir(parents=True, exist_ok=True)
    args = []
    for arg in spec.coverage_args:
        arg = arg.replace("{coverage}", str(folder))
        args += [arg.replace("{source}", path) for path in sources] if "{source}" in arg else [arg]
    return [*provider, *args], None


def _judged_coverage(
    ctx: SensorContext, spec: ToolSpec, sources: list[str], folder: Path, shown: str
) -> tuple[list[CheckFinding], dict[str, Any]]:
    """The coverage report judged as coverage.py's numbers are (threshold, files, changed
    lines); a claimed source the report leaves out is said, never counted as covered."""
    written = folder / (spec.coverage_report or "")
    if not written.is_file():
        raise SensorError(
            f"`{shown}` passed but wrote no coverage report ({spec.coverage_report}, "
            f"{spec.coverage_format})"
        )
    parse = COVERAGE_FORMATS.get(spec.coverage_format or "")
    if parse is None:
        raise SensorError(f"{spec.tool}: no parser for coverage format {spec.coverage_format!r}")
    report = parse(written, ctx.workspace)
    threshold = float(ctx.settings.get("coverage_threshold", ctx.option("threshold", 80)))
    measured = [path for path in sources if path in report]
    changed = None
    if ctx.settings.get("base_revision"):
        base = str(ctx.settings["base_revision"])
        lines = changed_lines(ctx.workspace, base, measured, ctx.timeout)
        changed = changed_coverage(report, base, lines)
    findings = judge(ctx, measured, report, changed, threshold)
    absent = [path for path in sources if path not in report]
    findings += [_unmeasured(ctx, path, shown) for path in absent]
    details: dict[str, Any] = {
        "threshold": threshold,
        "total": total_of(measured, report),
        "files": {path: public(report[path]) for path in measured},
        "format": spec.coverage_format,
    }
    if absent:
        details["not_in_report"] = absent
    if changed is not None:
        details["changed_lines"] = changed
    return findings, details


def _unmeasured(ctx: SensorContext, path: str, shown: str) -> CheckFinding:
    message = (
        f"not in the coverage report of `{shown}`: the targeted tests never loaded it, or "
        "the runner's configuration leaves it out of coverage"
    )
    rule = f"{ctx.name}/file-below-threshold"
    return ctx.finding(path, None, message, rule, "file_below_threshold", "minor", identity="")


_PLACE = re.compile(r"(?P<path>[\w@./-]+\.[A-Za-z]{1,4}):(?P<line>\d+)")


def _places(ctx: SensorContext, hit: Hit) -> list[list[Any]]:
    """``[[path, line], ...]``: where the failure stands and every place its message names."""
    found = [[hit.path, hit.line]] if hit.line else []
    found += [[m["path"], int(m["line"])] for m in _PLACE.finditer(hit.message)]
    places = []
    for path, line in found:
        relative = workspace_path(ctx.workspace, str(path))
        if relative and [relative, line] not in places:
            places.append([relative, line])
    return places


def _failed_test(ctx: SensorContext, hit: Hit) -> CheckFinding:
    path = workspace_path(ctx.workspace, hit.path) or ""
    if path and not (ctx.workspace / path).is_file():
        path = ""
    message = f"test {hit.rule} failed: {hit.message}"
    line = hit.line if path else None
    # identity: the test, not its message (a repair changes the numbers it quotes)
    identity = f"{path}::{hit.rule}"
    return ctx.finding(path, line, message, "tests-failed", "tests_failed", "major", identity)
