"""Spec of ``review.findings.explained``: a failing test whose traceback runs through a
line where a static check's blocking finding stands is that finding's symptom, folded into
it; one no static finding explains stays a finding of its own."""

from __future__ import annotations

from aidlc_review.review.findings.explained import fold_explained
from aidlc_review.sensors.results import CheckFinding, CheckResult

HEAD = "the targeted test command exited 1: "


def finding(path: str, line: int | None, message: str, severity: str = "major", print_: str = ""):
    return CheckFinding(severity, "correctness", path, line, message, None, print_ or message)


def typed(*findings: CheckFinding) -> CheckResult:
    return CheckResult("type-check", "failed", None, None, 0, tuple(findings))


def ran_tests(frames: dict[str, list[list]], *findings: CheckFinding) -> CheckResult:
    return CheckResult(
        "coverage", "failed", None, None, 0, tuple(findings), details={"frames": frames}
    )


UNION = finding("src/greet.py", 5, 'Item "None" has no attribute "upper"', print_="u")
NOBODY = finding("", None, f"{HEAD}tests/test_greet.py::test_nobody failed: boom", print_="t1")
ADA = finding("", None, f"{HEAD}tests/test_greet.py::test_ada failed: no", print_="t2")


def test_a_test_failing_through_a_static_findings_line_is_folded_into_it():
    frames = {"t1": [["tests/test_greet.py", 5], ["src/greet.py", 5]], "t2": [["x.py", 1]]}
    checked, ran = fold_explained([typed(UNION), ran_tests(frames, NOBODY, ADA)])

    assert ran.findings == (ADA,)  # nothing explains test_ada: it stays
    [named] = checked.findings
    assert named.message.endswith("(the cause of failing test tests/test_greet.py::test_nobody)")
    assert named.fingerprint == UNION.fingerprint  # a waiver on it still binds


def test_a_minor_static_finding_explains_nothing():
    minor = finding("src/greet.py", 5, "style", severity="minor", print_="m")
    frames = {"t1": [["src/greet.py", 5]]}
    results = [typed(minor), ran_tests(frames, NOBODY)]
    assert fold_explained(results) == results


def test_without_frames_nothing_is_folded():
    results = [typed(UNION), CheckResult("coverage", "failed", None, None, 0, (NOBODY,))]
    assert fold_explained(results) == results
