"""Delimited, removable additions to a core stage, in upstream's own contribution shapes.

Prose goes in as a *fragment*: a block between an open and a close sentinel that
carry the plugin, the anchor, the order and a content hash
(``<!-- plugin:P:ANCHOR:ORDER:HASH -->`` ... ``<!-- /plugin:P:ANCHOR:ORDER:HASH -->``),
which is the form upstream's compose hook splices and its ``select-plugins`` strips.
A structural addition (one ``consumes`` entry) is a run of whole lines appended to
the end of the field's block, recorded so that exactly those lines can be removed.
"""

from __future__ import annotations

import re

from aidlc_review.errors import InvalidInput

PLUGIN = "code-review"


def fnv1a(text: str) -> str:
    """FNV-1a 32-bit over UTF-16 code units, as upstream's compose hook hashes fragments."""
    value = 0x811C9DC5
    encoded = text.encode("utf-16-le")
    for i in range(0, len(encoded), 2):
        value ^= encoded[i] | (encoded[i + 1] << 8)
        value = (value * 0x01000193) & 0xFFFFFFFF
    return f"{value:08x}"


def fragment_block(anchor: str, order: int, prose: str) -> str:
    digest = fnv1a(prose)
    head = f"{PLUGIN}:{anchor}:{order}:{digest}"
    return f"<!-- plugin:{head} -->\n{prose}\n<!-- /plugin:{head} -->"


def _anchor_offset(text: str, anchor: str, display: str) -> int:
    """Where a virgin anchor inserts: the end of ``## Steps`` or of ``## <Compartment>``."""
    title = "Steps" if anchor == "end-of-steps" else anchor.removeprefix("in:")
    if anchor != "end-of-steps" and not anchor.startswith("in:"):
        raise InvalidInput(f"{display}: unsupported fragment anchor {anchor!r}")
    heading = re.search(rf"^## {re.escape(title)}\b.*$", text, re.M)
    if heading is None:
        raise InvalidInput(f"{display}: no '## {title}' section to add the plugin's steps to")
    rest = re.search(r"^## ", text[heading.end() :], re.M)
    return len(text) if rest is None else heading.end() + rest.start()


def splice_fragment(text: str, anchor: str, order: int, prose: str, display: str) -> str:
    """``text`` (without this plugin's blocks) with the fragment added at its anchor."""
    at = _anchor_offset(text, anchor, display)
    return text[:at] + "\n" + fragment_block(anchor, order, prose) + "\n" + text[at:]


_OPEN = re.compile(rf"<!-- plugin:{re.escape(PLUGIN)}:(.+?):(\d+):([0-9a-f]{{8}}) -->")


def strip_fragments(text: str) -> str:
    """``text`` without this plugin's fragments, byte for byte as before they were spliced."""
    while (found := _OPEN.search(text)) is not None:
        close = "<!-- /" + found.group(0)[len("<!-- ") :]
        end = text.find(close, found.end())
        if end == -1:
            raise InvalidInput(f"an unclosed plugin block: {found.group(0)}")
        start = (
            found.start() - 1 if text[found.start() - 1 : found.start()] == "\n" else found.start()
        )
        stop = end + len(close)
        stop += 1 if text[stop : stop + 1] == "\n" else 0
        text = text[:start] + text[stop:]
    return text


def has_fragments(text: str) -> bool:
    return _OPEN.search(text) is not None


def append_to_list_block(text: str, key: str, lines: list[str], display: str) -> str:
    """Append ``lines`` after the last item of the top-level block list ``key``."""
    block = re.search(rf"^{re.escape(key)}:\n((?:  .*\n)*)", text, re.M)
    if block is None:
        raise InvalidInput(f"{display}: no block list '{key}:' to add to")
    added = "".join(line + "\n" for line in lines)
    return text[: block.end()] + added + text[block.end() :]


def remove_lines(text: str, key: str, lines: list[str], display: str) -> str:
    """Remove the run of ``lines`` that ``append_to_list_block`` added to ``key``."""
    added = "".join(line + "\n" for line in lines)
    block = re.search(rf"^{re.escape(key)}:\n((?:  .*\n)*)", text, re.M)
    if block is None or added not in block.group(1):
        raise InvalidInput(f"{display}: the lines the plugin added to '{key}:' are no longer there")
    start = block.start(1) + block.group(1).rindex(added)
    return text[:start] + text[start + len(added) :]
