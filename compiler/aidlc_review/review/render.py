"""The one jinja2 environment: strict about missing values, no HTML escaping (Markdown out)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined


@lru_cache(maxsize=1)
def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("aidlc_review", "templates"), undefined=StrictUndefined,
        autoescape=False, keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True,
    )
    env.filters["quote"] = _blockquote
    return env


def render(template: str, **context: Any) -> str:
    return environment().get_template(template).render(**context)


def _blockquote(text: str) -> str:
    """Quote text verbatim as a Markdown block quote (every line, blank ones too)."""
    return "\n".join(f"> {line}" if line else ">" for line in str(text).splitlines() or [""])
