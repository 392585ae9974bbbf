"""Untrusted text (agents, tools) made inert in Markdown, and still readable as plain text.

CommonMark reads raw HTML, entities, autolinks and headings in text; it reads nothing in a
code span. So outside code spans every character that could start markup (``\\ < > &``)
and every backtick run that would not close on its line gets a backslash escape (shown as
the character itself by every renderer, and as ``\\<`` rather than ``&lt;`` in a
terminal); code spans (``f(a < b)`` as ruff and mypy quote code) are left as written,
since nothing in one is markup. Spans are paired per line the way CommonMark pairs them
(a backtick run closes at the next run of the same length), and a run left open is
escaped, so no span can reach across lines to a place the pairing here did not see.
Control characters (ANSI escapes included) become U+FFFD; a line that would start a
heading, a block quote, a list or a setext underline is escaped at its start.
"""

from __future__ import annotations

import re

_RUN = re.compile(r"`+")
_MARKUP = re.compile(r"([\\<>&])")
_BLOCK_START = ("#", "=", "-", "+", "*", ">")


def inert(text: object) -> str:
    cleaned = "".join(c if c.isprintable() or c in "\n\t" else "\ufffd" for c in str(text or ""))
    return "\n".join(_inert_line(line) for line in cleaned.split("\n"))


def _inert_line(line: str) -> str:
    out = "".join(
        piece if code else _MARKUP.sub(r"\\\1", piece).replace("`", "\\`")
        for piece, code in _spans(line)
    )
    body = out.lstrip()
    if not body.startswith(_BLOCK_START):
        return out
    return f"{out[: len(out) - len(body)]}\\{body}"


def _spans(line: str) -> list[tuple[str, bool]]:
    """``line`` cut into ``(text, is_code_span)`` pieces, paired as CommonMark pairs them."""
    pieces: list[tuple[str, bool]] = []
    start = 0  # where the current plain piece began
    at = 0
    while (opener := _RUN.search(line, at)) is not None:
        closer = _closing(line, opener)
        if closer is None:  # no run of this length follows: the backticks are plain text
            at = opener.end()
            continue
        pieces.append((line[start : opener.start()], False))
        pieces.append((line[opener.start() : closer.end()], True))
        start = at = closer.end()
    pieces.append((line[start:], False))
    return [(text, code) for text, code in pieces if text]


def _closing(line: str, opener: re.Match[str]) -> re.Match[str] | None:
    if opener.start() > 0 and line[opener.start() - 1] == "\\":
        return None  # an escaped backtick opens nothing (the backslash is escaped in turn)
    width = len(opener.group())
    runs = _RUN.finditer(line, opener.end())
    return next((run for run in runs if len(run.group()) == width), None)
