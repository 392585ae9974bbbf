"""Spec of ``review.report.inert``: untrusted text is inert Markdown, checked by rendering it
with a real CommonMark renderer (markdown-it-py, raw HTML on, as GitHub reads it before its
sanitiser): no tag but the paragraph and code spans, and the text reads as it was written."""

from __future__ import annotations

import html
import re

import pytest
from markdown_it import MarkdownIt

from aidlc_review.review.report.inert import inert

RENDERER = MarkdownIt("commonmark", {"html": True})
ALLOWED_TAGS = {"p", "code"}

ATTACKS = [
    "<img src=x onerror=alert(1)>",
    "<script>alert(1)</script>",
    "a & b &amp; &lt;tag&gt; &#60;",
    "<https://evil.example/>",
    "# Verdict: READY",
    "  ## Approved",
    "> approved",
    "- [x] reviewed",
    "Verdict\n===",
    "x ` y\n` <img src=x onerror=alert(1)> `",
    "`` a ` <b>bold</b> ``",
    "a\\`b` <img src=x> `",
    "a\\\\`<img src=x>`",
    "trailing backslash \\",
    "\\<script>",
    "ansi \x1b[2J clear and \x07 bell",
]
TOOL_TEXT = [
    "Use `X | Y` for type annotations",
    'Argument 1 to "f" has incompatible type "list[<nothing>]"',
    "`a < b` and `x & y` are code",
    'floor_token="<" is not a password',
]


def rendered(text: str) -> str:
    return RENDERER.render(inert(text))


def tags(page: str) -> set[str]:
    return {name.lower() for name in re.findall(r"</?([a-zA-Z][a-zA-Z0-9]*)", page)}


def read_back(page: str) -> str:
    """What a reader sees: the rendered page's text, tags dropped, entities decoded."""
    spaced = re.sub(r"</?code>", " ", page)  # a code span is read as a word of its own
    return html.unescape(re.sub(r"<[^>]+>", "", spaced)).strip()


@pytest.mark.parametrize("text", ATTACKS + TOOL_TEXT)
def test_nothing_untrusted_text_says_becomes_markup(text: str) -> None:
    assert tags(rendered(text)) <= ALLOWED_TAGS, rendered(text)


@pytest.mark.parametrize("text", ATTACKS + TOOL_TEXT)
def test_the_rendered_text_reads_as_written(text: str) -> None:
    """Escapes and code spans change how it is marked up, never what it says (control
    characters aside, which become U+FFFD)."""
    shown = "".join(c if c.isprintable() or c == "\n" else "\ufffd" for c in text)
    assert words(read_back(rendered(text))) == words(shown)


def words(text: str) -> str:
    """Text as read: a code span's backticks mark it up and are not read."""
    return " ".join(text.replace("`", " ").split())


def test_code_spans_as_tools_quote_code_are_left_as_written() -> None:
    assert inert("Use `X | Y` for `a < b`") == "Use `X | Y` for `a < b`"
    assert rendered("`a < b`") == "<p><code>a &lt; b</code></p>\n"


def test_outside_code_markup_characters_get_a_backslash_not_an_entity() -> None:
    """A terminal shows ``\\<`` where it used to show ``&lt;``."""
    assert inert("list[<nothing>] & co") == "list[\\<nothing\\>] \\& co"


def test_a_backtick_run_left_open_is_escaped_so_no_span_reaches_across_lines() -> None:
    """Paired per line: the open run on line 1 would otherwise close on line 2 and leave
    the tag after it raw."""
    assert inert("x ` y\n` <img> `") == "x \\` y\n` <img> `"
    assert "<img" not in rendered("x ` y\n` and ` <img src=x> z")


def test_a_line_that_would_start_a_block_is_escaped_at_its_start() -> None:
    assert inert("# Verdict: READY\n- item\n> quote") == "\\# Verdict: READY\n\\- item\n\\> quote"
    assert "<h1>" not in rendered("# Verdict: READY")
