"""The one jinja2 environment: strict about missing values, no HTML escaping (Markdown out)."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined

from aidlc_review.review.report.inert import inert


@lru_cache(maxsize=1)
def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("aidlc_review", "templates"),
        undefined=StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["quote"] = _blockquote
    env.filters["demote"] = _demote
    env.filters["oneline"] = _oneline
    env.filters["cell"] = lambda text: _oneline(text).replace("|", "\\|")
    env.filters["code"] = code_span
    return env


def render(template: str, **context: Any) -> str:
    return environment().get_template(template).render(**context)


def code_span(text: object) -> str:
    """``text`` (a path from the workspace: anyone's words) as one CommonMark code span,
    whatever it holds: its fence is longer than any backtick run in it (padded where it
    starts or ends with one), control characters and line breaks are U+FFFD."""
    cleaned = "".join(c if c.isprintable() else "\ufffd" for c in str(text))
    longest = max((len(run) for run in re.findall(r"`+", cleaned)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if cleaned.startswith("`") or cleaned.endswith("`") else ""
    return f"{fence}{pad}{cleaned}{pad}{fence}"


def _oneline(text: object) -> str:
    """Text for a list item or a table cell: one line, whitespace collapsed, inert."""
    return " ".join(inert(" ".join(str(text or "").split())).split())


def _demote(text: str, levels: int) -> str:
    """Push Markdown headings down so an embedded document nests under ours."""
    lines, fenced = [], False
    for line in str(text).splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            line = "#" * levels + line
        lines.append(line)
    return "\n".join(lines)


def _blockquote(text: str) -> str:
    """Quote text verbatim as a Markdown block quote (every line, blank ones too)."""
    lines = inert(text).splitlines() or [""]
    return "\n".join(f"> {line}" if line else ">" for line in lines)
