"""The receipt: binds a pass's verdict to the exact bytes it reviewed.

Everything in it is content-derived (digests of canonical JSON, no timestamps;
the passes' audit times are left out of the findings digest), so the same review
of the same bytes issues the same receipt.
"""

from __future__ import annotations

from collections.abc import Sequence

from aidlc_review.review.record.models import Check, Pass, Receipt, SensorVersion, Waiver
from aidlc_review.review.source.freeze import Frozen, digest_of


def findings_digest(passes: Sequence[Pass], waivers: Sequence[Waiver] = ()) -> str:
    """The passes as reviewed, without their audit times, and the waivers recorded: the
    same review of the same bytes gives the same digest (the findings document itself is
    sealed, times included). A waiver changes the digest, so one written into the document
    by hand no longer matches its receipt."""
    reviewed = [p.model_dump(mode="json", by_alias=True, exclude={"at"}) for p in passes]
    if not waivers:
        return digest_of(reviewed)  # the form receipts had before waivers were digested
    return digest_of({"passes": reviewed, "waivers": [w.model_dump(mode="json") for w in waivers]})


def issue_receipt(
    *,
    unit: str | None,
    manifest: str,
    frozen: Frozen,
    passes: Sequence[Pass],
    checks: Sequence[Check],
    baseline_digest: str,
    waivers: Sequence[Waiver] = (),
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
        findings_digest=findings_digest(passes, waivers),
        baseline_digest=baseline_digest,
    )


def with_waivers_digested(
    receipt: Receipt | None, passes: Sequence[Pass], waivers: Sequence[Waiver]
) -> Receipt | None:
    """The receipt bound again to the document's passes and its waivers (after ``review
    waive``): what it certifies about the bytes is unchanged."""
    if receipt is None:
        return None
    return receipt.model_copy(update={"findings_digest": findings_digest(passes, waivers)})
