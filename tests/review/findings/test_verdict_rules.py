"""Spec of ``review.findings.verdict``: NOT-READY iff an open critical or major finding no waiver
covers. Pure: no sensors, no subprocess (the mutation run of ``make mutation`` runs it)."""

from __future__ import annotations

from aidlc_review.review.findings.verdict import NOT_READY, READY, blocking, decide
from aidlc_review.review.record.models import Finding


def finding(n: int, severity: str = "major", status: str = "open") -> Finding:
    return Finding(
        id=f"CR-{n:03d}",
        severity=severity,  # type: ignore[arg-type]
        category="correctness",
        path="src/app.py",
        finding=f"defect {n}",
        evidence="seen",
        recommendation="fix it",
        status=status,  # type: ignore[arg-type]
        source="reviewer",
        fingerprint=f"fp-{n}",
        first_seen=1,
        attempt=1,
    )


def test_the_verdict_names_are_the_ones_the_documents_carry() -> None:
    assert (READY, NOT_READY) == ("READY", "NOT-READY")


def test_no_findings_is_ready() -> None:
    assert decide([]) == READY
    assert blocking([]) == []


def test_an_open_critical_or_major_finding_blocks() -> None:
    for severity in ("critical", "major"):
        assert decide([finding(1, severity)]) == NOT_READY
        assert blocking([finding(1, severity)]) == [finding(1, severity)]


def test_minor_findings_and_closed_ones_do_not_block() -> None:
    calm = [
        finding(1, "minor"),
        finding(2, "major", "resolved"),
        finding(3, "critical", "pre-existing"),
    ]
    assert decide(calm) == READY
    assert blocking(calm) == []


def test_a_waived_fingerprint_does_not_block_and_only_it() -> None:
    both = [finding(1), finding(2, "critical")]
    assert decide(both, {"fp-1"}) == NOT_READY
    assert blocking(both, {"fp-1"}) == [finding(2, "critical")]
    assert decide(both, {"fp-1", "fp-2"}) == READY
    assert blocking(both, ["fp-2", "fp-1"]) == []


def test_blocking_keeps_the_findings_order_and_reads_a_generator_once() -> None:
    found = [finding(3), finding(1, "minor"), finding(2, "critical")]
    assert blocking(iter(found)) == [finding(3), finding(2, "critical")]
    assert decide(iter(found), ()) == NOT_READY
