"""One defect, one finding: a failing test that a static finding of the change explains.

A test runner's result says, per failed test, the places its traceback passed through
(``details["frames"]``: ``{finding fingerprint: [[path, line], ...]}``). When a blocking
finding of a static check (the linter, the type check) stands on one of those places (an
undefined name, a stale caller of a renamed function, a None the type check saw), that
finding is the defect and the failing test is its symptom: the test's finding is folded
into it, and the static finding names the test it breaks. A failed test no static finding
explains stays a finding of its own, at its file and line.
"""

from __future__ import annotations

from dataclasses import replace

from aidlc_review.sensors.results import CheckFinding, CheckResult


def fold_explained(results: list[CheckResult]) -> list[CheckResult]:
    """``results`` with each explained failing test folded into the static finding."""
    static = {
        (finding.path, finding.line): (result.name, finding.fingerprint)
        for result in results
        if not result.details.get("frames")
        for finding in result.findings
        if finding.blocking and finding.line
    }
    folded: dict[str, list[str]] = {}  # static fingerprint -> the tests it explains
    out = []
    for result in results:
        frames = result.details.get("frames") or {}
        kept = []
        for finding in result.findings:
            cause = next(
                (
                    static[(p, n)]
                    for p, n in frames.get(finding.fingerprint, ())
                    if (p, n) in static
                ),
                None,
            )
            if cause is None:
                kept.append(finding)
            else:
                folded.setdefault(cause[1], []).append(_test_of(finding))
        out.append(
            replace(result, findings=tuple(kept)) if len(kept) < len(result.findings) else result
        )
    return [_naming(result, folded) for result in out] if folded else out


def _naming(result: CheckResult, folded: dict[str, list[str]]) -> CheckResult:
    if not any(f.fingerprint in folded for f in result.findings):
        return result
    return replace(
        result, findings=tuple(_named(f, folded.get(f.fingerprint)) for f in result.findings)
    )


def _named(finding: CheckFinding, tests: list[str] | None) -> CheckFinding:
    if not tests:
        return finding
    shown = ", ".join(tests[:3]) + (f" and {len(tests) - 3} more" if len(tests) > 3 else "")
    return replace(finding, message=f"{finding.message} (the cause of failing test {shown})")


def _test_of(finding: CheckFinding) -> str:
    """The failed test a runner's finding names (``...: <test> failed: ...``)."""
    head = finding.message.partition(" failed: ")[0]
    return head.rpartition(": ")[2] or head
