"""Waivers: a finding accepted on purpose, kept in the findings document.

A waiver names the finding's fingerprint, so it carries across passes and attempts (the ID
and fingerprint are stable) and does not cover a finding whose text or place changed. While
it holds, the finding stays open and visible but no longer blocks; once expired it blocks
again. Secrets and critical security findings are not waivable (``waiver_rule``).
"""

from __future__ import annotations

from datetime import date

from aidlc_review.errors import EXIT_FAILED, AidlcError, InvalidInput
from aidlc_review.harness.breadcrumbs import did_you_mean
from aidlc_review.review.findings.verdict import decide
from aidlc_review.review.record.models import Finding, FindingsDocument, Waiver
from aidlc_review.review.record.receipt import with_waivers_digested
from aidlc_review.waiver_rule import holds, refusal


class WaiverRefused(AidlcError):
    """The finding is of a class that may not be waived (a result, exit 1)."""

    exit_code = EXIT_FAILED


def in_force(doc: FindingsDocument, today: date) -> dict[str, Waiver]:
    """``{fingerprint: waiver}`` of the waivers that hold today (the latest per fingerprint)."""
    return {w.fingerprint: w for w in doc.waivers if holds(w.expires, today)}


def honoured(findings: list[Finding], held: dict[str, Waiver]) -> dict[str, Waiver]:
    """The waivers of ``held`` that cover one of ``findings`` of a class that may be waived.

    The not-waivable rule is applied here, where the verdict is decided, not only when a
    waiver is recorded: a waiver written into the document on a secret counts for nothing.
    """
    waivable = {
        f.fingerprint for f in findings if refusal(f.severity, f.category, f.check, f.rule) is None
    }
    return {fingerprint: w for fingerprint, w in held.items() if fingerprint in waivable}


def waived_prints(doc: FindingsDocument, findings: list[Finding], today: date) -> set[str]:
    """Fingerprints among ``findings`` a waiver of ``doc`` that holds ``today`` covers."""
    return set(honoured(findings, in_force(doc, today)))


def with_waivers(doc: FindingsDocument, today: date) -> FindingsDocument:
    """The document with its verdict decided again under the waivers that hold ``today``
    (an expired waiver blocks again). Unchanged when this attempt has no reviewed pass."""
    current = doc.attempt_passes()
    if not current or doc.receipt is None or doc.receipt.attempt != doc.attempt:
        return doc
    verdict = decide(current[-1].findings, waived_prints(doc, current[-1].findings, today))
    return doc if verdict == doc.verdict else doc.model_copy(update={"verdict": verdict})


def add_waiver(
    doc: FindingsDocument,
    finding_id: str,
    reason: str,
    by: str,
    expires: date | None,
    today: date,
) -> FindingsDocument:
    """The document with ``finding_id`` waived (and its verdict decided again)."""
    finding = _open_finding(doc, finding_id)
    refused = refusal(finding.severity, finding.category, finding.check, finding.rule)
    if refused:
        raise WaiverRefused(f"{finding.id} ({finding.severity} {finding.category}): {refused}")
    if expires is not None and expires < today:
        raise InvalidInput(f"--expires {expires.isoformat()}: already past")
    from aidlc_review.review.record.waiver_text import (
        check_waiver_text,  # detect-secrets: only here
    )

    check_waiver_text(reason, by)  # no secret, one line, capped (the CLI checks it first too)
    waiver = Waiver(
        finding=finding.id,
        fingerprint=finding.fingerprint,
        reason=reason.strip(),
        by=by,
        on=today,
        expires=expires,
    )
    waivers = [*(w for w in doc.waivers if w.fingerprint != finding.fingerprint), waiver]
    receipt = with_waivers_digested(doc.receipt, doc.passes, waivers)
    return with_waivers(doc.model_copy(update={"waivers": waivers, "receipt": receipt}), today)


def _open_finding(doc: FindingsDocument, finding_id: str) -> Finding:
    last = doc.attempt_passes()[-1].findings if doc.attempt_passes() else []
    known = {f.id: f for f in last}
    if finding_id not in known:
        raise InvalidInput(
            f"{finding_id}: no such finding in attempt {doc.attempt}"
            + did_you_mean(finding_id, known)
            + (f"; findings: {', '.join(known)}" if known else "")
        )
    if known[finding_id].status != "open":
        raise InvalidInput(f"{finding_id}: already {known[finding_id].status}; nothing to waive")
    return known[finding_id]


def waived_finding_ids(doc: FindingsDocument, today: date) -> dict[str, Waiver]:
    """``{finding id: waiver}`` for the open findings of the last pass a waiver covers."""
    last = doc.latest.findings if doc.latest else []
    held = honoured(last, in_force(doc, today))
    return {f.id: held[f.fingerprint] for f in last if f.status == "open" and f.fingerprint in held}
