"""The reviewer's answer is untrusted input: parse it strictly or record why not.

A rejected answer never raises: the pass records the reviewer as *unavailable*
with the reason, and that alone blocks approval.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass

from pydantic import ValidationError

from aidlc_review.review.models import BLOCKING, ReviewerAnswer
from aidlc_review.sensors.redact import Quoted
from aidlc_review.typed_load import describe, key_path, keys_of

MAX_ANSWER_BYTES = 1 << 20


@dataclass(frozen=True)
class AnswerCheck:
    answer: ReviewerAnswer | None
    reason: str | None  # why the answer was rejected; None when accepted
    quoted: tuple[Quoted, ...] = ()  # secrets the agent's text held (redacted since)


def validate_answer(text: str | bytes | None, claimed: Collection[str]) -> AnswerCheck:
    if text is None:
        return AnswerCheck(None, "no answer")
    raw = text.encode() if isinstance(text, str) else text
    if len(raw) > MAX_ANSWER_BYTES:
        return AnswerCheck(None, f"answer is larger than {MAX_ANSWER_BYTES} bytes")
    if not raw.strip():
        return AnswerCheck(None, "empty answer")
    try:
        data = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        return AnswerCheck(None, f"answer is not JSON: {exc}")
    try:
        answer = ReviewerAnswer.model_validate(data, strict=True)
    except ValidationError as exc:
        return AnswerCheck(None, _first_error(exc))
    reason = _inconsistency(answer, set(claimed))
    return AnswerCheck(None, reason) if reason else AnswerCheck(answer, None)


def _inconsistency(answer: ReviewerAnswer, claimed: set[str]) -> str | None:
    for index, finding in enumerate(answer.findings):
        if finding.path not in claimed:
            return f"$.findings[{index}].path: {finding.path!r} is not a path the unit claims"
    has_blocking = any(f.severity in BLOCKING for f in answer.findings)
    if answer.verdict == "NOT-READY" and not has_blocking:
        return "$.verdict: NOT-READY needs at least one critical or major finding"
    if answer.verdict == "READY" and has_blocking:
        return "$.verdict: READY contradicts an open critical or major finding"
    return None


def _first_error(exc: ValidationError) -> str:
    first = sorted(exc.errors(), key=lambda e: [str(p) for p in e["loc"]])[0]
    loc, message = describe(first, keys_of(ReviewerAnswer))
    return f"{key_path(loc, '$')}: {message}"
