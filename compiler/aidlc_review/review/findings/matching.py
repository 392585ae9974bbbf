"""Which earlier reviewer finding a new one restates, when the reviewer gave no ID.

Reviewers reword. Two findings are the same when they share path and category and
their normalized texts are at least ``SIMILARITY`` alike (``difflib`` ratio).
Normalizing lowercases, blanks numbers and drops line references ("at line 12":
code moves), drops the quotes around identifiers (```os``` = ``os``) and
punctuation, and collapses whitespace; the ratio
is also taken with the quoted identifiers left out entirely, and the higher one
counts. Pairs are made best-first and each earlier finding is used at most once, so
two different findings in one file never collapse into one ID.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from difflib import SequenceMatcher

SIMILARITY = 0.8
_QUOTED = re.compile(r"`[^`]*`|'[^'\s]*'|\"[^\"\s]*\"")
_QUOTES = re.compile(r"[`'\"]")
_NUMBERS = re.compile(r"\d+")
_PUNCTUATION = re.compile(r"[^\w#\s]")
_SPACE = re.compile(r"\s+")
_LINE_REFERENCE = re.compile(r"\b(?:(?:at|on|in) )?lines? #(?: (?:to|and|#) ?#?)*")


def normalized(text: str, *, keep_quoted: bool = True) -> str:
    """``Still: unused import `os` (line 3)`` -> ``still unused import os``."""
    if not keep_quoted:
        text = _QUOTED.sub(" ", text)
    text = _NUMBERS.sub("#", _QUOTES.sub("", text.lower()))
    text = _SPACE.sub(" ", _PUNCTUATION.sub(" ", text))
    return _SPACE.sub(" ", _LINE_REFERENCE.sub(" ", text)).strip()


def similarity(a: str, b: str) -> float:
    """The better of the two readings of "quoted identifiers ignored"."""
    kept = SequenceMatcher(None, normalized(a), normalized(b)).ratio()
    left_out = SequenceMatcher(
        None, normalized(a, keep_quoted=False), normalized(b, keep_quoted=False)
    ).ratio()
    return max(kept, left_out)


def pair_by_text(
    new: Sequence[tuple[str, str, str]], earlier: Sequence[tuple[str, str, str]]
) -> dict[int, int]:
    """Index into ``new`` -> index into ``earlier``, for (path, category, text) triples.

    Best-first and one-to-one; ties broken by position, so the result is deterministic.
    """
    scored = []
    for i, (path, category, text) in enumerate(new):
        for j, (old_path, old_category, old_text) in enumerate(earlier):
            if (path, category) != (old_path, old_category):
                continue
            score = similarity(text, old_text)
            if score >= SIMILARITY:
                scored.append((-score, i, j))
    pairs: dict[int, int] = {}
    used: set[int] = set()
    for _, i, j in sorted(scored):
        if i not in pairs and j not in used:
            pairs[i] = j
            used.add(j)
    return pairs
