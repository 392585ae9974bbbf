"""A reviewer's finding is backed by the code, or it does not block.

A reviewer (a model) cites ``path``, ``location`` and ``evidence``: a quote of the code or a
precise reference. The review checks that quote against the bytes it reviewed: the code the
evidence quotes (a backtick span whole, else a run of at least ``SHARED`` characters of its
text) must stand in the file, near the cited lines when there are some.
A finding whose evidence is not found there is kept and shown as *unverified*; it does not
block. One whose evidence matches blocks as its severity says. The status is derived from
the bytes every time (the pass, and every gate's recomputation): a record cannot call a
backed finding unverified.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from difflib import SequenceMatcher
from pathlib import Path

from aidlc_review.review.record.models import Finding

NEAR = 3  # lines around the cited ones where the quote may stand
SHORTEST = 6  # characters (spaces aside) a backtick span needs to count as code
SHARED = 12  # characters evidence without a span must share, in one run, with the code
_SPAN = re.compile(r"`+([^`]+)`+")
_LINES_PREFIX = re.compile(r"^\s*lines?\s+[\d\s,\-–and]+:\s*", re.IGNORECASE)
_LOCATION = re.compile(r"^(\d+)(?:-(\d+))?$")


def checked_evidence(
    findings: Iterable[Finding], read: Callable[[str], str | None]
) -> list[Finding]:
    """The findings with each unresolved reviewer finding's status derived from its
    evidence: ``open`` when the quote stands in the code, else ``unverified``."""
    out = []
    for finding in findings:
        if finding.source != "reviewer" or finding.status not in ("open", "unverified"):
            out.append(finding)
            continue
        status = "open" if backed(finding, read(finding.path)) else "unverified"
        out.append(
            finding if status == finding.status else finding.model_copy(update={"status": status})
        )
    return out


def backed(finding: Finding, text: str | None) -> bool:
    """Does the code the finding's evidence quotes stand in ``text`` near its lines? A
    backtick span must stand there whole; evidence without one must stand there whole, or
    share a run of at least ``SHARED`` characters with the code (a quote inside prose)."""
    if text is None:
        return False
    lines = text.splitlines()
    first, last = _window(finding.location, len(lines))
    near = _squeezed(" ".join(lines[first:last]))
    spans = [_squeezed(span) for span in _SPAN.findall(finding.evidence)]
    spans = [span for span in spans if len(span.replace(" ", "")) >= SHORTEST]
    if spans:
        return any(span in near for span in spans)
    plain = _squeezed(_LINES_PREFIX.sub("", finding.evidence))
    if len(plain.replace(" ", "")) >= SHORTEST and plain in near:
        return True  # the evidence is a quote, short as it may be
    shared = SequenceMatcher(None, plain, near, autojunk=False)
    return shared.find_longest_match(0, len(plain), 0, len(near)).size >= SHARED


def _window(location: str | None, count: int) -> tuple[int, int]:
    found = _LOCATION.match(location or "")
    if found is None:
        return 0, count
    first = int(found[1])
    last = int(found[2] or first)
    return max(first - 1 - NEAR, 0), min(last + NEAR, count)


def _squeezed(text: str) -> str:
    return " ".join(text.split())


def reading(workspace: Path) -> Callable[[str], str | None]:
    """``path`` -> its text in ``workspace`` (None: absent, outside it, or not text)."""
    root = workspace.resolve()

    def read(path: str) -> str | None:
        target = (root / path).resolve()
        if not path or not target.is_relative_to(root):
            return None
        try:
            return target.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    return read
