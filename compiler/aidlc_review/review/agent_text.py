"""Agent text is untrusted output: secrets come out before it is stored anywhere.

Every field of a reviewer's answer, and the reason an answer was rejected (which
may quote it), passes the same detect-secrets plugins the sensors use
(``sensors.redact.scrub``). What was hidden is kept as ``Quoted`` (type and hash,
never the value) so the pass can raise "secret quoted by the reviewer" when the
secret is not already one of the unit's known findings.
"""

from __future__ import annotations

import re

from aidlc_review.review.answer import AnswerCheck
from aidlc_review.review.models import AnswerFinding, ReviewerAnswer
from aidlc_review.sensors.redact import Quoted, scrub

_HASHED = re.compile(r"hashed secret ([0-9a-f]{40})")
_TEXT_FIELDS = ("finding", "evidence", "recommendation")


def scrub_check(check: AnswerCheck) -> AnswerCheck:
    """The checked answer (or rejection reason) with every secret redacted, and what was hid."""
    quoted: set[Quoted] = set()

    def clean(text: str) -> str:
        out, found = scrub(text)
        quoted.update(found)
        return out

    reason = clean(check.reason) if check.reason is not None else None
    answer = check.answer
    if answer is not None:
        findings = [
            f.model_copy(update={k: clean(getattr(f, k)) for k in _TEXT_FIELDS})
            for f in answer.findings
        ]
        answer = _answer(answer, clean(answer.summary), findings)
    return AnswerCheck(answer, reason, tuple(sorted(quoted)))


def _answer(answer: ReviewerAnswer, summary: str, findings: list[AnswerFinding]) -> ReviewerAnswer:
    return answer.model_copy(update={"summary": summary, "findings": findings})


def known_hashes(messages: list[str]) -> set[str]:
    """The hashed secrets secret-scan findings name (``... (hashed secret <sha1>)``)."""
    return {match for text in messages for match in _HASHED.findall(text)}
