"""Spec of ``review.record.consistency``: a findings document that disagrees with itself or with
its receipt is named for each disagreement. Pure (``make mutation``): documents in memory."""

from __future__ import annotations

from datetime import date

from aidlc_review.review.findings.change_filter import Change
from aidlc_review.review.record.consistency import contradictions
from aidlc_review.review.record.models import (
    Finding,
    FindingsDocument,
    Location,
    Pass,
    Receipt,
    ReviewerRecord,
    Waiver,
)
from aidlc_review.review.record.receipt import findings_digest


class _EveryPrint(frozenset[str]):
    """Every finding was reported on the base's bytes too: only the changed lines decide."""

    def __contains__(self, item: object) -> bool:
        return True


EVERY_PRINT = _EveryPrint()

DIGEST = "sha256:" + "0" * 64
APP = "src/app.py"
SHOWN = "u/code-review-findings.json"


def finding(n: int, severity: str = "major", **extra: object) -> Finding:
    fields: dict[str, object] = {
        "id": f"CR-{n:03d}",
        "severity": severity,
        "category": "maintainability",
        "path": APP,
        "location": "10",
        "locations": [Location(line=10)],
        "finding": f"defect {n}",
        "evidence": "seen",
        "recommendation": "fix it",
        "status": "open",
        "source": "sensor",
        "check": "linter",
        "rule": "F401",
        "fingerprint": f"fp-{n}",
        "first_seen": 1,
        "attempt": 1,
    }
    return Finding.model_validate({**fields, **extra})


def a_pass(number: int, verdict: str, findings: list[Finding], attempt: int = 1) -> Pass:
    return Pass.model_validate(
        {
            "attempt": attempt,
            "pass": number,
            "verdict": verdict,
            "source_fingerprint": DIGEST,
            "reviewer": ReviewerRecord(agent="claude", status="answered"),
            "findings": findings,
            "checks": [],
        }
    )


def receipt_for(passes: list[Pass], waivers: list[Waiver] = (), **extra: object) -> Receipt:  # type: ignore[assignment]
    last = passes[-1]
    fields: dict[str, object] = {
        "unit": "u",
        "attempt": last.attempt,
        "pass": last.number,
        "verdict": last.verdict,
        "manifest": "u/manifest.yaml",
        "manifest_digest": DIGEST,
        "files": {},
        "unit_source_fingerprint": DIGEST,
        "sensors": [],
        "findings_digest": findings_digest(passes, waivers),
        "baseline_digest": DIGEST,
    }
    return Receipt.model_validate({**fields, **extra})


def document(
    passes: list[Pass],
    verdict: str,
    receipt: Receipt | None,
    waivers: list[Waiver] = (),  # type: ignore[assignment]
    attempt: int = 1,
) -> FindingsDocument:
    return FindingsDocument.model_validate(
        {
            "unit": "u",
            "attempt": attempt,
            "verdict": verdict,
            "passes": passes,
            "checks": [],
            "waivers": list(waivers),
            "receipt": receipt,
        }
    )


def waiver(n: int, expires: date | None = None) -> Waiver:
    return Waiver(
        finding=f"CR-{n:03d}",
        fingerprint=f"fp-{n}",
        reason="accepted",
        by="a@b",
        on=date(2026, 1, 1),
        expires=expires,
    )


def consistent(
    findings: list[Finding], verdict: str, waivers: list[Waiver] = ()
) -> tuple[FindingsDocument, Receipt]:  # type: ignore[assignment]
    passes = [a_pass(1, "NOT-READY", [finding(9)]), a_pass(2, verdict, findings)]
    receipt = receipt_for(passes, waivers)
    return document(passes, verdict, receipt, waivers), receipt


def test_a_document_without_a_receipt_has_nothing_to_disagree_with() -> None:
    doc, _ = consistent([finding(1)], "READY")
    assert contradictions(SHOWN, doc, None, None) == []


def test_a_consistent_document_holds_with_or_without_the_committed_receipt() -> None:
    for findings, verdict in (([finding(1, "minor")], "READY"), ([finding(1)], "NOT-READY")):
        doc, receipt = consistent(findings, verdict)
        assert contradictions(SHOWN, doc, receipt, None) == []
        assert contradictions(SHOWN, doc, receipt, receipt) == []


def test_a_receipt_other_than_the_one_issued_is_named() -> None:
    doc, receipt = consistent([finding(1, "minor")], "READY")
    other = receipt.model_copy(update={"manifest": "elsewhere.yaml"})
    differs = f"{SHOWN}: its receipt differs from the receipt issued with it"
    assert contradictions(SHOWN, doc, other, None) == [differs]
    assert contradictions(SHOWN, doc, receipt, other) == [differs]
    assert contradictions(SHOWN, doc, other, other) == [differs]


def test_a_receipt_of_another_attempt_is_named_and_nothing_more_is_compared() -> None:
    doc, receipt = consistent([finding(1)], "READY")  # READY with a major: not looked at
    later = receipt.model_copy(update={"attempt": 2})
    assert contradictions(SHOWN, doc, later, None) == [
        f"{SHOWN}: its receipt differs from the receipt issued with it",
        f"{SHOWN}: the receipt is for attempt 2, the record is at attempt 1",
    ]
    again = doc.model_copy(update={"attempt": 2, "receipt": later})
    assert contradictions(SHOWN, again, later, later) == [
        f"{SHOWN}: the receipt is for attempt 2, the record is at attempt 2"
    ]


def test_a_receipt_for_another_pass_or_verdict_than_the_last_is_named() -> None:
    doc, receipt = consistent([finding(1, "minor")], "READY")
    for change, said in (
        ({"number": 1}, "pass 1 (READY)"),
        ({"verdict": "NOT-READY"}, "pass 2 (NOT-READY)"),
    ):
        other = receipt.model_copy(update=change)
        bound = doc.model_copy(update={"receipt": other})
        assert contradictions(SHOWN, bound, other, None) == [
            f"{SHOWN}: the receipt is for {said}, the record's last pass is 2 (READY)"
        ]


def test_findings_or_waivers_changed_since_the_receipt_are_named() -> None:
    doc, receipt = consistent([finding(1, "minor")], "READY")
    edited = doc.model_copy(
        update={"passes": [doc.passes[0], a_pass(2, "READY", [finding(2, "minor")])]}
    )
    changed = f"{SHOWN}: its findings or waivers changed since the receipt"
    assert contradictions(SHOWN, edited, receipt, None) == [changed]
    waived = doc.model_copy(update={"waivers": [waiver(1)]})
    assert contradictions(SHOWN, waived, receipt, None) == [changed]


def test_a_stored_ready_its_own_findings_do_not_decide_is_named_with_the_blockers() -> None:
    findings = [finding(1), finding(2, "minor"), finding(3, "critical")]
    doc, receipt = consistent(findings, "READY")
    assert contradictions(SHOWN, doc, receipt, None) == [
        f"{SHOWN}: stored verdict READY, but its own findings decide NOT-READY "
        "(CR-001 major, CR-003 critical)"
    ]


def test_either_ready_the_document_or_its_last_pass_is_checked_and_not_ready_never() -> None:
    passes = [a_pass(1, "READY", [finding(1)])]
    receipt = receipt_for(passes)
    doc = document(passes, "NOT-READY", receipt)
    assert contradictions(SHOWN, doc, receipt, None) == [
        f"{SHOWN}: stored verdict READY, but its own findings decide NOT-READY (CR-001 major)"
    ]
    passes = [a_pass(1, "NOT-READY", [finding(1)])]
    receipt = receipt_for(passes)
    assert contradictions(SHOWN, document(passes, "READY", receipt), receipt, None) == [
        f"{SHOWN}: stored verdict READY, but its own findings decide NOT-READY (CR-001 major)"
    ]
    assert contradictions(SHOWN, document(passes, "NOT-READY", receipt), receipt, None) == []


def test_a_recorded_waiver_decides_even_expired_but_never_on_a_secret() -> None:
    doc, receipt = consistent([finding(1)], "READY", [waiver(1, expires=date(2000, 1, 1))])
    assert contradictions(SHOWN, doc, receipt, None) == []
    doc, receipt = consistent([finding(1), finding(2)], "READY", [waiver(1)])
    assert contradictions(SHOWN, doc, receipt, None) == [  # the waived one is not named
        f"{SHOWN}: stored verdict READY, but its own findings decide NOT-READY (CR-002 major)"
    ]
    secret = finding(1, check="secret-scan", rule="secret-scan/AWS Access Key", category="security")
    doc, receipt = consistent([secret], "READY", [waiver(1)])
    assert contradictions(SHOWN, doc, receipt, None) == [
        f"{SHOWN}: stored verdict READY, but its own findings decide NOT-READY (CR-001 major)"
    ]


def test_with_a_change_the_findings_are_classified_again_whatever_they_say() -> None:
    said_old = finding(1, status="pre-existing")
    doc, receipt = consistent([said_old], "READY")
    assert contradictions(SHOWN, doc, receipt, None) == []  # no change known: as recorded
    elsewhere = Change("base", "added", {APP: frozenset({99})}, EVERY_PRINT)
    assert contradictions(SHOWN, doc, receipt, None, elsewhere) == []
    here = Change("base", "added", {APP: frozenset({10})}, EVERY_PRINT)
    assert contradictions(SHOWN, doc, receipt, None, here) == [
        f"{SHOWN}: stored verdict READY, but its own findings decide NOT-READY (CR-001 major)"
    ]
    said_new = consistent([finding(1)], "READY")
    assert contradictions(SHOWN, *said_new, None, elsewhere) == []


def test_every_disagreement_is_named_in_order() -> None:
    doc, receipt = consistent([finding(1, "minor")], "READY")
    forged = doc.model_copy(
        update={"passes": [doc.passes[0], a_pass(3, "READY", [finding(2)])], "receipt": None}
    )
    assert contradictions(SHOWN, forged, receipt, None) == [
        f"{SHOWN}: its receipt differs from the receipt issued with it",
        f"{SHOWN}: the receipt is for pass 2 (READY), the record's last pass is 3 (READY)",
        f"{SHOWN}: its findings or waivers changed since the receipt",
        f"{SHOWN}: stored verdict READY, but its own findings decide NOT-READY (CR-002 major)",
    ]
