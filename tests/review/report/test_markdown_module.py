"""``review.report.markdown``: what a project-wide tool reported outside the unit's files
(tsc judging the whole project: ``details["outside_unit"]``) is shown beside the checks as a
count with the tool named, never as a finding of the unit."""

from __future__ import annotations

from aidlc_review.review.record.models import FindingsDocument, Pass, ReviewerRecord
from aidlc_review.review.report.markdown import outside_unit, render_report
from aidlc_review.review.run.engine import to_check
from aidlc_review.sensors.results import judged

FP = "sha256:" + "cd" * 32
ELSEWHERE = "2 tsc finding(s) outside the unit's files"


def document(*checks: object) -> FindingsDocument:
    reviewer = ReviewerRecord(
        agent="command:bot", status="answered", summary="ok.", verdict="READY"
    )
    done = Pass.model_validate(
        {
            "attempt": 1,
            "pass": 1,
            "verdict": "READY",
            "source_fingerprint": FP,
            "reviewer": reviewer,
            "findings": [],
            "checks": list(checks),
            "at": "2026-05-01T09:30:00Z",
            "by": "dev@example.com",
        }
    )
    return FindingsDocument(
        unit="u1-cart", attempt=1, verdict="READY", passes=[done], checks=list(checks)
    )


def test_a_project_wide_tool_s_findings_outside_the_unit_are_a_count_never_findings() -> None:
    result = judged(
        "type-check", [], "tsc -p tsconfig.json", tool="tsc", details={"outside_unit": [ELSEWHERE]}
    )
    doc = document(to_check(result))

    report = render_report(doc)

    assert result.status == "passed" and result.findings == ()
    assert "| type-check | passed | tsc | 0 | 2 tsc finding(s) outside the unit's files |" in report
    assert (
        "Outside the unit (a project-wide tool's findings on files the unit does not claim: "
        "counted,\nnot judged):\n- type-check: 2 tsc finding(s) outside the unit's files\n"
    ) in report
    assert "## Remaining findings (0)\n\nNone." in report


def test_a_check_that_did_not_run_says_why_but_nothing_is_outside_the_unit() -> None:
    skipped = to_check(judged("linter", [], "eslint -- src/cart.ts", tool="eslint"))
    doc = document(skipped.model_copy(update={"status": "skipped", "reason": "not installed"}))

    assert outside_unit(doc) == []
    assert "Outside the unit" not in render_report(doc)


def test_a_check_with_nothing_outside_the_unit_has_no_note() -> None:
    result = judged("type-check", [], "tsc -p tsconfig.json", tool="tsc", details={})

    assert result.reason is None
    assert outside_unit(document(to_check(result))) == []
