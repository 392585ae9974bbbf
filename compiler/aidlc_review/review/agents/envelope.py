"""Where the answer sits in an agent's stdout: bare, fenced, or in an agent CLI's envelope.

Accepted, and nothing else:

- bare JSON (the answer object itself);
- exactly one fenced ```` ```json ```` block, prose around it allowed;
- Claude Code's ``claude -p --output-format json`` result object
  (``{"type": "result", "subtype": "success", "is_error": false, "result": "<text>",
  "session_id": ..., "total_cost_usd": ..., "usage": ...}``; with ``stream-json`` it is
  the last line; with ``"verbose": true`` in its settings a JSON array of messages whose
  last is the result object), whose ``result`` text is bare JSON or one fenced block;
- Codex's ``codex exec --json`` JSONL events, where the answer is the text of the last
  ``{"type": "item.completed", "item": {"type": "agent_message", "text": ...}}``.

An envelope that reports a failure (``is_error``, ``turn.failed``) is that failure, for a
reviewer and (``reported_failure``) for a repairer that exits 0 all the same; the same words
explain a non-zero exit. ``environment_failure`` tells a CLI that cannot work here from one
that failed once, ``hopeless`` a turn still running that can only fail, and
``reported_usage`` reads the tokens and cost the envelope reports. What comes
out is still untrusted: ``answer.validate_answer`` checks it strictly.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aidlc_review.typed_load import too_deep

MAX_STDOUT_BYTES = 8 << 20
MAX_ERROR_CHARS = 500
_FENCED = re.compile(r"^[ \t]*```json[ \t]*\r?\n(.*?)^[ \t]*```[ \t]*$", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class Unwrapped:
    text: str | bytes | None  # the answer's own text, for validation
    form: str  # json | fenced | claude | codex | raw
    error: str | None = None  # why there is no answer (the envelope said so, or too large)
    # an answer arrived, in whichever envelope, but not in a readable form: worth one retry
    misformed: bool = False


@dataclass(frozen=True)
class Envelope:
    """One agent CLI's output envelope: how to recognise it, where its answer is, and the
    failure it can report. Adding a CLI is adding an entry to ``ENVELOPES`` (and its test)."""

    form: str
    recognises: Callable[[list[dict[str, Any]]], bool]
    answer: Callable[[list[dict[str, Any]]], Unwrapped]
    failure: Callable[[list[dict[str, Any]]], str | None]
    as_one_object: bool  # whether the whole stdout can be the envelope, not only JSONL


def unwrap(stdout: bytes) -> Unwrapped:
    """The answer text inside ``stdout``; ``raw`` (the bytes as they are) when no known
    form fits, so validation names what is wrong with them."""
    if len(stdout) > MAX_STDOUT_BYTES:
        return Unwrapped(None, "raw", f"agent output is larger than {MAX_STDOUT_BYTES} bytes")
    try:
        text = stdout.decode("utf-8")
    except UnicodeDecodeError:
        return Unwrapped(stdout, "raw")
    whole = _json(text)
    events = _events_of(whole, text)
    for envelope in ENVELOPES:
        if events and (envelope.as_one_object or whole is None) and envelope.recognises(events):
            return envelope.answer(events)
    if isinstance(whole, dict):
        return Unwrapped(text, "json")
    return _fenced(text, "fenced") or Unwrapped(text, "raw")


def reported_failure(stdout: bytes) -> str | None:
    """The failure an agent CLI's envelope reports (Claude Code's ``is_error`` or a
    non-``success`` subtype; a Codex ``turn.failed`` or ``error`` event), with its own
    error text; None when it reports none or is no known envelope. Not redacted."""
    if len(stdout) > MAX_STDOUT_BYTES:
        return None
    text = stdout.decode("utf-8", "replace")
    whole = _json(text)
    events = _events_of(whole, text)
    found = next((e for e in ENVELOPES if events and e.recognises(events)), None)
    return found.failure(events) if found is not None else None


def reported_usage(stdout: bytes) -> dict[str, Any]:
    """The tokens and cost an agent CLI's envelope reports ({} when it reports none):
    ``input_tokens`` (not read from a cache), ``output_tokens``, ``cache_read_tokens``,
    ``cache_write_tokens``, ``cost_usd``. Claude Code's result carries them all; Codex's
    ``turn.completed`` events carry tokens (``input_tokens`` counts the cached ones too)."""
    if len(stdout) > MAX_STDOUT_BYTES:
        return {}
    text = stdout.decode("utf-8", "replace")
    events = _events_of(_json(text), text)
    if events and _is_claude_result(events[-1]):
        return _claude_usage(events[-1])
    if events and _is_codex(events):
        return _codex_usage(events)
    return {}


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _claude_usage(result: dict[str, Any]) -> dict[str, Any]:
    said = result.get("usage")
    usage: dict[str, Any] = said if isinstance(said, dict) else {}
    cost = result.get("total_cost_usd")
    found = {
        "input_tokens": _count(usage.get("input_tokens")),
        "output_tokens": _count(usage.get("output_tokens")),
        "cache_read_tokens": _count(usage.get("cache_read_input_tokens")),
        "cache_write_tokens": _count(usage.get("cache_creation_input_tokens")),
        "cost_usd": float(cost) if isinstance(cost, int | float) and cost >= 0 else None,
    }
    return {key: value for key, value in found.items() if value is not None}


def _codex_usage(events: list[dict[str, Any]]) -> dict[str, Any]:
    totals: dict[str, int] = {}
    for event in events:
        usage = event.get("usage") if event.get("type") == "turn.completed" else None
        if not isinstance(usage, dict):
            continue
        cached = _count(usage.get("cached_input_tokens")) or 0
        counts = {
            "input_tokens": max((_count(usage.get("input_tokens")) or 0) - cached, 0),
            "output_tokens": _count(usage.get("output_tokens")) or 0,
            "cache_read_tokens": cached,
            "cache_write_tokens": _count(usage.get("cache_write_input_tokens")) or 0,
        }
        for key, value in counts.items():
            totals[key] = totals.get(key, 0) + value
    return dict(totals)


def _claude_error(envelope: dict[str, Any]) -> str | None:
    subtype = envelope.get("subtype", "success")
    if envelope.get("is_error") is not True and subtype == "success":
        return None
    detail = "is_error" if subtype == "success" else subtype or "error"
    said = envelope.get("result") if envelope.get("is_error") is True else None
    errors = envelope.get("errors")
    if not said and isinstance(errors, list):
        said = "; ".join(str(e) for e in errors)
    told = f": {said}"[: MAX_ERROR_CHARS + 2] if isinstance(said, str) and said.strip() else ""
    return f"the Claude Code run reported an error ({detail}){told}"


def _claude(envelope: dict[str, Any]) -> Unwrapped:
    error = _claude_error(envelope)
    if error is not None:
        return Unwrapped(None, "claude", error)
    result = envelope.get("result")
    if not isinstance(result, str):
        return Unwrapped(None, "claude", "the Claude Code result envelope holds no result text")
    return _inner(result, "claude")


def _codex(events: list[dict[str, Any]]) -> Unwrapped:
    messages = [
        e["item"]["text"]
        for e in events
        if e.get("type") == "item.completed"
        and isinstance(e.get("item"), dict)
        and e["item"].get("type") == "agent_message"
        and isinstance(e["item"].get("text"), str)
    ]
    if messages:
        return _inner(messages[-1], "codex")
    failed = _codex_failure(events)
    if failed:
        return Unwrapped(None, "codex", failed)
    return Unwrapped(None, "codex", "the Codex event stream holds no agent message")


def _codex_failure(events: list[dict[str, Any]]) -> str | None:
    """The turn's end decides: ``turn.failed`` (or an ``error`` with no turn ending after it)
    is a failure; an ``error`` that a ``turn.completed`` follows was a notice (Codex reports
    each ``Reconnecting...`` it recovered from as one)."""
    ends = [e for e in events if e.get("type") in ("turn.completed", "turn.failed", "error")]
    if not ends or ends[-1].get("type") == "turn.completed":
        return None
    error = ends[-1].get("error")
    message = error.get("message") if isinstance(error, dict) else ends[-1].get("message")
    return f"the Codex run failed: {str(message)[:MAX_ERROR_CHARS] if message else 'no message'}"


# What an agent CLI says when no turn of it can succeed here: no credentials, credentials
# refused, no network. Matched in its own envelope (Claude's result text or API status,
# Codex's failure), never in the model's words.
_CANNOT_WORK = re.compile(
    r"Not logged in|Invalid API key|API key|/login|authentication_error|Missing environment "
    r"variable|401 Unauthorized|403 Forbidden|waiting for network|Connection failed|"
    r"error sending request|Unable to connect|ECONNREFUSED|ENOTFOUND",
    re.IGNORECASE,
)
# Codex waits for the network without end; this many waits in a row and the turn is given up.
NETWORK_WAITS = 2


def environment_failure(stdout: bytes) -> str | None:
    """The CLI's own reason when its envelope says it cannot work in this environment (not
    logged in, no key, key refused, endpoint unreachable); None for any other outcome."""
    said = reported_failure(stdout)
    if said is None:
        return None
    text = stdout.decode("utf-8", "replace")
    status = _claude_status(_json(text))
    return said if status in (401, 403) or _CANNOT_WORK.search(said) else None


def _claude_status(whole: Any) -> Any:
    last = whole[-1] if isinstance(whole, list) and whole else whole
    return last.get("api_error_status") if isinstance(last, dict) else None


def hopeless(stdout: bytes) -> bool:
    """Whether a turn still running can only fail: Codex has waited for the network
    ``NETWORK_WAITS`` times without anything else happening in between."""
    waits = 0
    for line in stdout.decode("utf-8", "replace").splitlines()[-NETWORK_WAITS * 4 :]:
        event = _json(line) if line.startswith("{") else None
        if not isinstance(event, dict):
            continue
        waiting = "waiting for network" in str(event.get("message", ""))
        waits = waits + 1 if event.get("type") == "error" and waiting else 0
    return waits >= NETWORK_WAITS


def _is_codex(events: list[dict[str, Any]]) -> bool:
    return any(str(e.get("type", "")).startswith(("thread.", "turn.", "item.")) for e in events)


def _inner(text: str, form: str) -> Unwrapped:
    """The answer inside an envelope's text: bare JSON or one fenced block."""
    if _json(text) is not None:
        return Unwrapped(text, form)
    return _fenced(text, form) or Unwrapped(text, form)


def _fenced(text: str, form: str) -> Unwrapped | None:
    blocks = _FENCED.findall(text)
    if len(blocks) == 1:
        return Unwrapped(blocks[0], form)
    if len(blocks) > 1:
        why = f"answer holds {len(blocks)} fenced json blocks, not one"
        return Unwrapped(None, form, why, misformed=True)
    return None


def _events_of(whole: Any, text: str) -> list[dict[str, Any]]:
    """The messages in stdout: one object, a JSON array of them (Claude Code's verbose
    ``json`` output), or JSONL."""
    if isinstance(whole, dict):
        return [whole]
    if isinstance(whole, list):
        typed = whole and all(isinstance(e, dict) and "type" in e for e in whole)
        return list(whole) if typed else []
    return _events(text)


def _events(text: str) -> list[dict[str, Any]]:
    """JSONL: every non-blank line one JSON object with a ``type``; [] otherwise."""
    lines = [line for line in text.splitlines() if line.strip()]
    events = [_json(line) for line in lines]
    if len(lines) < 2 or not all(isinstance(e, dict) and "type" in e for e in events):
        return []
    return [e for e in events if isinstance(e, dict)]


def _is_claude_result(data: dict[str, Any]) -> bool:
    return data.get("type") == "result" and ("result" in data or "is_error" in data)


def _json(text: str) -> Any:
    """The JSON in ``text``, or None (also when nested too deep to parse safely)."""
    if too_deep(text.encode("utf-8", "surrogatepass")) is not None:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


ENVELOPES: tuple[Envelope, ...] = (
    Envelope(
        "claude",
        recognises=lambda events: _is_claude_result(events[-1]),
        answer=lambda events: _claude(events[-1]),
        failure=lambda events: _claude_error(events[-1]),
        as_one_object=True,
    ),
    Envelope("codex", _is_codex, _codex, _codex_failure, as_one_object=False),
)
