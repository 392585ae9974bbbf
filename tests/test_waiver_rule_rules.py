"""Spec of ``waiver_rule``: what may be waived and until when. Pure (``make mutation``)."""

from __future__ import annotations

from datetime import date

import pytest

from aidlc_review.waiver_rule import SECRET_CHECK, holds, parse_day, refusal

SECRET = (
    "a secret is not waivable: remove it, or record a test fixture's fake key in the "
    "workspace's .secrets.baseline (the secret scan's baseline, audited at the base)"
)
CRITICAL_SECURITY = "a critical security finding is not waivable: repair it, or request changes"


def test_a_finding_of_the_secret_scan_is_never_waivable_whatever_its_severity() -> None:
    assert SECRET_CHECK == "secret-scan"
    for severity in ("critical", "major", "minor"):
        assert refusal(severity, "security", "secret-scan", None) == SECRET
        assert refusal(severity, "tests", "secret-scan", "anything") == SECRET


def test_a_secret_scan_rule_marks_a_secret_even_when_another_check_reported_it() -> None:
    assert refusal("minor", "security", "linter", "secret-scan/AWS Access Key") == SECRET
    assert refusal("minor", "security", None, "secret-scan/x") == SECRET


def test_a_rule_only_named_like_the_secret_scan_is_not_a_secret() -> None:
    assert refusal("minor", "security", "linter", "secret-scan") is None
    assert refusal("minor", "security", "linter", "secret-scanner/x") is None
    assert refusal("minor", "security", "linter", "x/secret-scan/y") is None
    assert refusal("minor", "security", "secret-scans", None) is None


def test_a_critical_security_finding_is_not_waivable_and_nothing_else_is_refused() -> None:
    assert refusal("critical", "security", "security", "S608") == CRITICAL_SECURITY
    assert refusal("critical", "security", None, None) == CRITICAL_SECURITY
    assert refusal("major", "security", "security", "S608") is None
    assert refusal("critical", "correctness", None, None) is None
    assert refusal("minor", "maintainability", "linter", "F401") is None


def test_a_waiver_holds_through_its_expiry_day_inclusive() -> None:
    expires = date(2026, 3, 10)
    assert holds(expires, date(2026, 3, 9))
    assert holds(expires, date(2026, 3, 10))
    assert not holds(expires, date(2026, 3, 11))


def test_a_waiver_without_expiry_holds_until_revoked() -> None:
    assert holds(None, date(1970, 1, 1))
    assert holds(None, date(9999, 12, 31))


def test_a_day_is_read_as_an_iso_date() -> None:
    assert parse_day("2026-02-28", "expires") == date(2026, 2, 28)


def test_a_day_that_is_not_a_date_is_refused_naming_what_it_is() -> None:
    with pytest.raises(ValueError) as raised:
        parse_day("2026-02-30", "waiver CR-001 expires")
    assert str(raised.value) == "waiver CR-001 expires '2026-02-30': not a date (YYYY-MM-DD)"
    assert raised.value.__cause__ is None and raised.value.__suppress_context__
