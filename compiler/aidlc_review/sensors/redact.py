"""Secret values never leave a sensor or an agent: every message and agent text passes here.

Tools quote source text in their messages (ruff's "Undefined name `AKIA...`", mypy's
``Literal['...']`` types), and agents quote the offending line (as a real model does),
so a value the secret-scan reports only by hash could otherwise reach stdout, the
findings document, the report, a brief or the result cache. detect-secrets' own
plugins, with their default settings, find the values; each is replaced, with the
whole token around it: by ``<redacted secret>`` in a tool's message, by
``[redacted: <type> <hash8>]`` in an agent's text (``scrub``), which also says which
secrets it hid, so the review can tell a quoted known finding from a new leak.

The plugins can take minutes on the wrong text (the keyword detector on
``secret_password_token_`` repeated: 1 KB 0.15 s, 5 KB 3.5 s, 20 KB over a minute), so
only short texts (``FAST_CHARS``, at most about 60 ms measured) are checked in process.
Longer ones are checked in a forked child with a time limit per text
(``REDACT_SECONDS``, ``sensors.deadline``); a text not checked in time is replaced
wholesale by ``[redacted: unchecked text <hash8>]``: it is never let through unchecked.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from aidlc_review.sensors.deadline import WorkerFailed, run_limited

REDACTED = "<redacted secret>"
FAST_CHARS = 512  # checked in process: the slowest known text this long takes about 60 ms
REDACT_SECONDS = 10.0  # per text, in the child: a 1 MiB source file takes 3 to 5 s
# every plugin's secret is a long run of these: a text without one is not scanned at all
_LONG_RUN = re.compile(r"[A-Za-z0-9+/=_-]{16,}")
_TOKEN = re.compile(r"[A-Za-z0-9+/=_-]")


@dataclass(frozen=True, order=True)
class Quoted:
    """A secret found in a text, never its value: the detect-secrets type, the SHA-1 of the
    whole token (shown), and the SHA-1 of what the plugin matched, which is the hash
    detect-secrets records in findings and baselines (for a GitHub token only its prefix)."""

    type: str
    hashed: str
    scan_hash: str

    @property
    def marker(self) -> str:
        return f"[redacted: {self.type} {self.hashed[:8]}]"


@functools.lru_cache(maxsize=4096)  # make_finding and the finding itself both redact
def redact(text: str) -> str:
    """``text`` with every secret value detect-secrets finds in it replaced by ``REDACTED``."""
    [values] = _values_many([text], None)
    if values is None:
        return unchecked_marker(text)
    return _replace(text, values, lambda _value, _token: REDACTED)


def scrub(text: str, seconds: float | None = None) -> tuple[str, tuple[Quoted, ...]]:
    """Agent text with each secret replaced by ``[redacted: <type> <hash8>]``, and the secrets."""
    [scrubbed] = scrub_many([text], seconds)
    return scrubbed


def scrub_many(
    texts: Sequence[str], seconds: float | None = None
) -> list[tuple[str, tuple[Quoted, ...]]]:
    """``scrub`` for many texts at once: the long ones share one child (one fork). A text
    not checked within ``seconds`` (default ``REDACT_SECONDS``) is replaced wholesale."""
    return [
        _scrub_one(text, values) if values is not None else (unchecked_marker(text), ())
        for text, values in zip(texts, _values_many(texts, seconds), strict=True)
    ]


def unchecked_marker(text: str) -> str:
    return f"[redacted: unchecked text {_hash(text)[:8]}]"


def _scrub_one(text: str, values: dict[str, str]) -> tuple[str, tuple[Quoted, ...]]:
    quoted: set[Quoted] = set()

    def marker(value: str, token: str) -> str:
        found = Quoted(values[value], _hash(token), _hash(value))
        quoted.add(found)
        return found.marker

    return _replace(text, values, marker), tuple(sorted(quoted))


def _values_many(texts: Sequence[str], seconds: float | None) -> list[dict[str, str] | None]:
    """Each text's secret values and their types; None for a text not checked in time."""
    limit = REDACT_SECONDS if seconds is None else seconds
    out: list[dict[str, str] | None] = [None] * len(texts)
    pending = []
    for index, text in enumerate(texts):
        if len(text) <= FAST_CHARS or not _LONG_RUN.search(text):
            out[index] = _secret_values(text)
        else:
            pending.append(index)
    _plugins()  # loaded here, once: the child inherits them
    while pending:
        try:
            done = run_limited(_values_each, [texts[i] for i in pending], limit, per_item=True)
        except WorkerFailed:
            return out  # what is left stays unchecked
        for at, values in done.results.items():
            out[pending[at]] = values
        unfinished = [i for at, i in enumerate(pending) if at not in done.results]
        pending = unfinished[1:]  # texts go in order: the first unfinished one ran out of time
    return out


def _values_each(texts: Sequence[str]) -> Iterator[tuple[int, dict[str, str]]]:
    for index, text in enumerate(texts):
        yield index, _secret_values(text)


def _replace(text: str, values: dict[str, str], marker: Callable[[str, str], str]) -> str:
    spans = sorted(span for value in values for span in _spans(text, value))
    out, at = [], 0
    for start, end, value in spans:
        if end > at:  # overlapping spans of two plugins: one marker
            if start >= at:
                out.append(text[at:start] + marker(value, text[start:end]))
            at = end
    return "".join(out) + text[at:]


def _secret_values(text: str) -> dict[str, str]:
    """Each secret value in ``text`` and the type of the first plugin that found it."""
    found: dict[str, str] = {}
    if not _LONG_RUN.search(text):
        return found
    for plugin in _plugins():
        # analyze_string, not analyze_line: the latter may try to verify a secret online
        for value in plugin.analyze_string(text):
            if value and _passes_limit(plugin, value):
                found.setdefault(value, str(plugin.secret_type))
    return found


def _passes_limit(plugin: Any, value: str) -> bool:
    limit = getattr(plugin, "entropy_limit", None)
    return limit is None or plugin.calculate_shannon_entropy(value) > limit


def _hash(value: str) -> str:
    # detect-secrets' own PotentialSecret.hash_secret: what secret-scan findings carry
    return hashlib.sha1(value.encode("utf-8")).hexdigest()


def _spans(text: str, value: str) -> list[tuple[int, int, str]]:
    """Each occurrence of ``value`` widened to its whole token: a plugin may match a prefix."""
    spans = []
    for match in re.finditer(re.escape(value), text):
        start, end = match.span()
        while start > 0 and _TOKEN.match(text[start - 1]):
            start -= 1
        while end < len(text) and _TOKEN.match(text[end]):
            end += 1
        spans.append((start, end, value))
    return spans


@functools.cache
def _plugins() -> tuple[Any, ...]:
    """One instance of every built-in plugin with its defaults (no global settings touched)."""
    try:
        from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    except ImportError:
        return ()
    classes: list[Any] = list(get_mapping_from_secret_type_to_class().values())
    return tuple(cls() for cls in classes)
