"""The receipt: binds a pass's verdict to the exact bytes it reviewed.

Everything in it is content-derived (digests of canonical JSON, no timestamps;
the passes' audit times are left out of the findings digest), so the same review
of the same bytes issues the same receipt.
"""

from __future__ import annotations

from collections.abc import Sequence

from aidlc_review.review.freeze import Frozen, digest_of
from aidlc_review.review.models import Check, Pass, Receipt, SensorVersion


def findings_digest(passes: Sequence[Pass]) -> str:
    """The passes as reviewed, without their audit times: the same review of the same bytes
    gives the same digest (the findings document itself is sealed, times included)."""
    return digest_of([p.model_dump(mode="json", by_alias=True, exclude={"at"}) for p in passes])


def issue_receipt(
    *,
    unit: str | None,
    manifest: str,
    frozen: Frozen,
    passes: Sequence[Pass],
    checks: Sequence[Check],
    baseline_digest: str,
) -> Receipt:
    last = passes[-1]
    sensors = [
        SensorVersion(name=c.name, status=c.status, tool=c.tool, tool_version=c.tool_version)
        for c in checks
    ]
    return Receipt(
        unit=unit,
        attempt=last.attempt,
        number=last.number,  # type: ignore[call-arg]  # "pass" is the alias
        verdict=last.verdict,
        manifest=manifest,
        manifest_digest=frozen.manifest_digest,
        files=dict(frozen.files),
        unit_source_fingerprint=frozen.fingerprint,
        sensors=sensors,
        findings_digest=findings_digest(passes),
        baseline_digest=baseline_digest,
    )
