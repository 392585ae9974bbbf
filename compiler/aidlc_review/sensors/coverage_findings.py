"""What the coverage numbers say as findings: files, the total and the changed lines
below the threshold (per file), each naming the lines the tests did not run.

Line ranges are written as ``coverage report -m`` writes its Missing column
(``12-18, 40``): a range runs over statements, across blank and comment lines.
"""

from __future__ import annotations

from typing import Any

from coverage.results import format_lines

from aidlc_review.sensors.context import SensorContext
from aidlc_review.sensors.coverage_analysis import Report, percent
from aidlc_review.sensors.results import CheckFinding

RANGES_LIMIT = 400  # characters of line ranges in a message; the details hold them all


def public(entry: dict[str, Any]) -> dict[str, Any]:
    """A file's numbers for the result's details: counts and the uncovered line ranges."""
    shown = {k: v for k, v in entry.items() if k not in ("executed", "missing")}
    shown["uncovered"] = ranges(entry["executed"], entry["missing"])
    return shown


def ranges(executed: list[int] | set[int], missing: list[int] | set[int]) -> str:
    return str(format_lines(set(executed) | set(missing), set(missing)))


def total_of(sources: list[str], report: Report) -> dict[str, Any]:
    keys = ("statements", "covered_lines", "branches", "covered_branches")
    sums = {k: sum(report[f][k] for f in sources if f in report) for k in keys}
    sums["percent"] = percent(
        sums["covered_lines"] + sums["covered_branches"], sums["statements"] + sums["branches"]
    )
    return sums


def changed_coverage(report: Report, base: str, changed: dict[str, set[int]]) -> dict[str, Any]:
    """Coverage of the statements changed since ``base``, and which of them the tests missed."""
    statements = covered = 0
    uncovered = {}
    for path, lines in sorted(changed.items()):
        entry = report.get(path)
        if entry is None:
            continue
        executed, missing = lines & set(entry["executed"]), lines & set(entry["missing"])
        statements += len(executed | missing)
        covered += len(executed)
        if missing:
            uncovered[path] = ranges(executed, missing)
    return {
        "base": base,
        "statements": statements,
        "covered_lines": covered,
        "percent": percent(covered, statements),
        "uncovered": uncovered,
    }


def judge(
    ctx: SensorContext,
    sources: list[str],
    report: Report,
    changed: dict[str, Any] | None,
    threshold: float,
) -> list[CheckFinding]:
    findings = [
        _file_finding(ctx, path, report[path], threshold)
        for path in sources
        if path in report and report[path]["percent"] < threshold
    ]
    total = total_of(sources, report)
    if total["percent"] < threshold:
        message = (
            f"coverage of the claimed source {total['percent']:g}% < {threshold:g}% "
            f"({total['covered_lines']}/{total['statements']} lines, "
            f"{total['covered_branches']}/{total['branches']} branches)"
        )
        findings.append(_finding(ctx, "", message, "total"))
    if changed and changed["statements"] and changed["percent"] < threshold:
        findings += _changed_findings(ctx, changed, threshold)
    return findings


def _changed_findings(
    ctx: SensorContext, changed: dict[str, Any], threshold: float
) -> list[CheckFinding]:
    """One finding per file holding changed lines the tests did not run, at the first of
    them: the review then sees it on the same file as that file's own coverage finding
    (one defect, one finding), and a change filter can place it."""
    said = (
        f"coverage of the lines changed since {changed['base']} "
        f"{changed['percent']:g}% < {threshold:g}% "
        f"({changed['covered_lines']}/{changed['statements']} lines); changed lines not run: "
    )
    return [
        _finding(ctx, path, f"{said}{path} {_capped(lines)}", "changed", _first_line(lines))
        for path, lines in changed["uncovered"].items()
    ]


def _first_line(ranges_text: str) -> int | None:
    head = ranges_text.split(",", 1)[0].split("-", 1)[0].strip()
    return int(head) if head.isdigit() else None


def _file_finding(
    ctx: SensorContext, path: str, entry: dict[str, Any], threshold: float
) -> CheckFinding:
    never = not entry["executed"]
    what = "never executed by the targeted tests" if never else "below the threshold"
    message = (
        f"coverage {entry['percent']:g}% < {threshold:g}%: {what} "
        f"({entry['covered_lines']}/{entry['statements']} lines, "
        f"{entry['covered_branches']}/{entry['branches']} branches)"
    )
    missing = ranges(entry["executed"], entry["missing"])
    if missing:
        message += f"; lines not run: {_capped(missing)}"
    return _finding(ctx, path, message, "file")


def _finding(
    ctx: SensorContext, path: str, message: str, scope: str, line: int | None = None
) -> CheckFinding:
    # identity "": the numbers and lines change with every repair, the finding stays the same
    return ctx.finding(
        path,
        line,
        message,
        f"{ctx.name}/{scope}-below-threshold",
        f"{scope}_below_threshold",
        "minor" if scope == "file" else "major",
        identity="",
    )


def _capped(text: str) -> str:
    if len(text) <= RANGES_LIMIT:
        return text
    cut = text[:RANGES_LIMIT].rsplit(",", 1)[0]
    return f"{cut}, ... (all of them in the result's details)"
