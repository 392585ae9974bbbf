"""Secret values never leave a sensor: every finding message and result reason passes here.

Tools quote source text in their messages (ruff's "Undefined name `AKIA...`", mypy's
``Literal['...']`` types), so a value the secret-scan reports only by hash could
otherwise reach stdout, the findings document, the report and the result cache.
detect-secrets' own plugins, with their default settings, find the values; each is
replaced, with the whole token around it, by ``<redacted secret>``.
"""

from __future__ import annotations

import functools
import re
from typing import Any

REDACTED = "<redacted secret>"
# every plugin's secret is a long run of these: a text without one is not scanned at all
_LONG_RUN = re.compile(r"[A-Za-z0-9+/=_-]{16,}")
_TOKEN = re.compile(r"[A-Za-z0-9+/=_-]")


@functools.lru_cache(maxsize=4096)  # make_finding and the finding itself both redact
def redact(text: str) -> str:
    """``text`` with every secret value detect-secrets finds in it replaced by ``REDACTED``."""
    if not _LONG_RUN.search(text):
        return text
    spans = sorted(span for value in _secret_values(text) for span in _spans(text, value))
    out, at = [], 0
    for start, end in spans:
        if end > at:  # overlapping spans of two plugins: one marker
            out.append(text[at:start] + REDACTED if start >= at else "")
            at = end
    return "".join(out) + text[at:]


def _secret_values(text: str) -> set[str]:
    found: set[str] = set()
    for plugin in _plugins():
        # analyze_string, not analyze_line: the latter may try to verify a secret online
        for value in plugin.analyze_string(text):
            if value and _passes_limit(plugin, value):
                found.add(value)
    return found


def _passes_limit(plugin: Any, value: str) -> bool:
    limit = getattr(plugin, "entropy_limit", None)
    return limit is None or plugin.calculate_shannon_entropy(value) > limit


def _spans(text: str, value: str) -> list[tuple[int, int]]:
    """Each occurrence of ``value`` widened to its whole token: a plugin may match a prefix."""
    spans = []
    for match in re.finditer(re.escape(value), text):
        start, end = match.span()
        while start > 0 and _TOKEN.match(text[start - 1]):
            start -= 1
        while end < len(text) and _TOKEN.match(text[end]):
            end += 1
        spans.append((start, end))
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
