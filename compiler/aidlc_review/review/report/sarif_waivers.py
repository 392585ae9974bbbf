"""A waived finding in SARIF: still a result, with an accepted external suppression."""

from __future__ import annotations

from typing import Any

from aidlc_review.review.record.models import Waiver


def with_suppression(result: dict[str, Any], waiver: Waiver | None) -> dict[str, Any]:
    if waiver is None:
        return result
    justification = f"{waiver.reason} (waived by {waiver.by} on {waiver.on.isoformat()}"
    justification += f", until {waiver.expires.isoformat()})" if waiver.expires else ")"
    suppression = {"kind": "external", "status": "accepted", "justification": justification}
    return {**result, "suppressions": [suppression]}
