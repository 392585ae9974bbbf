"""The waiver rule, in one place: what may be waived, and until when a waiver holds.

Read by the review (its verdict) and by the findings-schema sensor (verdict consistency),
which must not import the review: so it lives here, below both.
"""

from __future__ import annotations

from datetime import date

SECRET_CHECK = "secret-scan"  # noqa: S105 (a check's name, not a secret)


def refusal(severity: str, category: str, check: str | None, rule: str | None) -> str | None:
    """Why a finding may not be waived, or None when it may."""
    if check == SECRET_CHECK or (rule or "").startswith(SECRET_CHECK + "/"):
        return (
            "a secret is not waivable: remove it, or record a test fixture's fake key in the "
            "workspace's .secrets.baseline (the secret scan's baseline, audited at the base)"
        )
    if severity == "critical" and category == "security":
        return "a critical security finding is not waivable: repair it, or request changes"
    return None


def holds(expires: date | None, today: date) -> bool:
    """A waiver holds through its expiry date (inclusive); without one, until revoked."""
    return expires is None or today <= expires


def parse_day(text: str, what: str) -> date:
    """``YYYY-MM-DD`` or ValueError naming ``what``."""
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise ValueError(f"{what} {text!r}: not a date (YYYY-MM-DD)") from None
