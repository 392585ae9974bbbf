"""The reviewer's answer is untrusted input: parse it strictly or record why not.

A rejected answer never raises: the pass records the reviewer as *unavailable*
with the reason, and that alone blocks approval. Beyond its schema, an answer must
name claimed paths, lines inside the frozen file, and only IDs of this unit's
earlier reviewer findings (``known``), each at most once.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from aidlc_review.fsio import sha256_bytes
from aidlc_review.review.record.models import AgentUsage, ReviewerAnswer
from aidlc_review.sensors.redact import Quoted
from aidlc_review.severity import BLOCKING
from aidlc_review.typed_load import MAX_JSON_DEPTH, describe, key_path, keys_of, too_deep

MAX_ANSWER_BYTES = 1 << 20


@dataclass(frozen=True)
class AnswerCheck:
    answer: ReviewerAnswer | None
    reason: str | None  # why the answer was rejected; None when accepted
    quoted: tuple[Quoted, ...] = ()  # secrets the agent's text held (redacted since)
    usage: AgentUsage | None = None  # what asking cost (a command agent's turns)


def validate_answer(
    text: str | bytes | None,
    claimed: Collection[str],
    *,
    lines: Mapping[str, int] | None = None,
    known: Collection[str] | None = None,
) -> AnswerCheck:
    """``lines``: each claimed file's line count (None: not checked); ``known``: the
    IDs of earlier reviewer findings an answer may restate or resolve (None: not checked)."""
    if text is None:
        return AnswerCheck(None, "no answer")
    raw = text.encode() if isinstance(text, str) else text
    if len(raw) > MAX_ANSWER_BYTES:
        return AnswerCheck(None, f"answer is larger than {MAX_ANSWER_BYTES} bytes")
    if not raw.strip():
        return AnswerCheck(None, "empty answer")
    if too_deep(raw) is not None:
        return AnswerCheck(None, f"answer is nested deeper than {MAX_JSON_DEPTH} levels")
    try:
        data = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        return AnswerCheck(None, f"answer is not JSON: {exc}")
    try:
        answer = ReviewerAnswer.model_validate(data, strict=True)
    except ValidationError as exc:
        return AnswerCheck(None, _first_error(exc))
    reason = _inconsistency(answer, set(claimed)) or _confirm_places(answer, lines, known)
    return AnswerCheck(None, reason) if reason else AnswerCheck(answer, None)


def _confirm_places(
    answer: ReviewerAnswer, lines: Mapping[str, int] | None, known: Collection[str] | None
) -> str | None:
    if lines is not None:
        for index, finding in enumerate(answer.findings):
            reason = _past_end(finding.path, finding.location, lines)
            if reason:
                return f"$.findings[{index}].location: {reason}"
    return None if known is None else _unknown_ids(answer, set(known))


def _past_end(path: str, location: str | None, lines: Mapping[str, int]) -> str | None:
    if location is None or path not in lines:
        return None
    count = lines[path]
    start, _, end = location.partition("-")
    if max(int(start), int(end or start)) > count:
        return f"line {location} is past the end of {path} ({count} lines)"
    if int(end or start) < int(start):
        return f"line range {location} ends before it starts"
    return None


def _unknown_ids(answer: ReviewerAnswer, known: set[str]) -> str | None:
    restated: dict[str, str] = {}
    for index, finding in enumerate(answer.findings):
        if finding.id is None:
            continue
        where = f"$.findings[{index}].id"
        if finding.id not in known:
            return f"{where}: {finding.id} is not an earlier reviewer finding of this unit"
        if finding.id in restated:
            return f"{where}: {finding.id} is already restated at {restated[finding.id]}"
        restated[finding.id] = f"$.findings[{index}]"
    resolved: set[str] = set()
    for index, item in enumerate(answer.resolved):
        where = f"$.resolved[{index}].id"
        if item.id not in known:
            return f"{where}: {item.id} is not an earlier reviewer finding of this unit"
        if item.id in restated:
            return f"{where}: {item.id} is restated as still present at {restated[item.id]}"
        if item.id in resolved:
            return f"{where}: {item.id} is resolved twice"
        resolved.add(item.id)
    return None


def frozen_line_counts(workspace: Path, files: Mapping[str, str]) -> dict[str, int]:
    """Line count of each claimed file whose bytes are still the frozen ones."""
    counts = {}
    for path, digest in files.items():
        try:
            data = (workspace / path).read_bytes()
        except OSError:
            continue
        if sha256_bytes(data) == digest:
            counts[path] = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    return counts


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
