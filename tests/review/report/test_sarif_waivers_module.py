"""Spec of ``review.report.sarif_waivers``: a waiver is an accepted external SARIF suppression."""

from __future__ import annotations

from datetime import date

from aidlc_review.review.record.models import Waiver
from aidlc_review.review.report.sarif_waivers import with_suppression

RESULT = {
    "ruleId": "F401",
    "level": "error",
    "message": {"text": "`os` imported but unused"},
    "locations": [{"physicalLocation": {"artifactLocation": {"uri": "src/app.py"}}}],
}


def waiver(expires: date | None = None) -> Waiver:
    return Waiver(
        finding="CR-001",
        fingerprint="fp-1",
        reason="the import is kept for the plugin loader",
        by="lead",
        on=date(2024, 3, 5),
        expires=expires,
    )


def test_a_result_no_waiver_covers_is_returned_as_it_is() -> None:
    assert with_suppression(RESULT, None) is RESULT


def test_a_waiver_without_expiry_is_an_accepted_external_suppression() -> None:
    suppressed = with_suppression(RESULT, waiver())
    assert suppressed == {
        **RESULT,
        "suppressions": [
            {
                "kind": "external",
                "status": "accepted",
                "justification": "the import is kept for the plugin loader "
                "(waived by lead on 2024-03-05)",
            }
        ],
    }


def test_a_waiver_with_an_expiry_names_its_last_day() -> None:
    [suppression] = with_suppression(RESULT, waiver(date(2024, 4, 1)))["suppressions"]
    assert suppression["justification"] == (
        "the import is kept for the plugin loader (waived by lead on 2024-03-05, until 2024-04-01)"
    )


def test_the_result_given_is_not_changed() -> None:
    before = {**RESULT}
    with_suppression(RESULT, waiver())
    assert RESULT == before and "suppressions" not in RESULT


def test_a_suppression_already_on_the_result_is_replaced_by_the_waivers_one() -> None:
    stale = {**RESULT, "suppressions": [{"kind": "inSource", "status": "accepted"}]}
    assert [s["kind"] for s in with_suppression(stale, waiver())["suppressions"]] == ["external"]
