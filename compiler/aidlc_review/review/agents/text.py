"""Agent text is untrusted output: secrets come out before it is stored anywhere.

Every field of a reviewer's answer, and the reason an answer was rejected (which
may quote it), passes the same detect-secrets plugins the sensors use
(``sensors.redact.scrub_many``, with its time limit). What was hidden is kept as
``Quoted`` (type and hash, never the value) so the pass can raise "secret quoted by
the reviewer" when the secret is not already one of the unit's known findings.
"""

from __future__ import annotations

import re

from aidlc_review.review.agents.answer import AnswerCheck
from aidlc_review.sensors.redact import scrub_many

_HASHED = re.compile(r"hashed secret ([0-9a-f]{40})")
_TEXT_FIELDS = ("finding", "evidence", "recommendation")


def scrub_check(check: AnswerCheck) -> AnswerCheck:
    """The checked answer (or rejection reason) with every secret redacted, and what was hid.

    All its texts are checked at once (one child for the long ones); a text that could not
    be checked in time is replaced wholesale, never kept unchecked.
    """
    answer = check.answer
    findings = answer.findings if answer is not None else []
    resolved = answer.resolved if answer is not None else []
    texts = [check.reason or "", answer.summary if answer is not None else ""]
    texts += [getattr(f, k) for f in findings for k in _TEXT_FIELDS]
    texts += [r.reason for r in resolved]
    scrubbed = scrub_many(texts)
    clean = [text for text, _ in scrubbed]
    reason = clean[0] if check.reason is not None else None
    if answer is not None:
        width = len(_TEXT_FIELDS)
        cleaned = [
            f.model_copy(update=dict(zip(_TEXT_FIELDS, clean[2 + n * width :], strict=False)))
            for n, f in enumerate(findings)
        ]
        reasons = clean[2 + len(findings) * width :]
        answer = answer.model_copy(
            update={
                "summary": clean[1],
                "findings": cleaned,
                "resolved": [
                    r.model_copy(update={"reason": text})
                    for r, text in zip(resolved, reasons, strict=True)
                ],
            }
        )
    quoted = sorted({q for _, found in scrubbed for q in found})
    return AnswerCheck(answer, reason, tuple(quoted), check.usage)


def known_hashes(messages: list[str]) -> set[str]:
    """The hashed secrets secret-scan findings name (``... (hashed secret <sha1>)``)."""
    return {match for text in messages for match in _HASHED.findall(text)}
