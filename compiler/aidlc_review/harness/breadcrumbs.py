"""Turn pydantic validation errors into ``path:line: key.path: message`` breadcrumbs."""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable
from typing import Any

from pydantic import ValidationError

from aidlc_review.errors import Diagnostic

# Known keys by parent key ("" = top level), for "did you mean" on unknown keys.
KeyChoices = dict[str, list[str]]

_TYPE_WORDS = {
    "bool_type": "a boolean (true or false)",
    "bool_parsing": "a boolean (true or false)",
    "string_type": "a string",
    "int_type": "an integer",
    "int_parsing": "an integer",
    "list_type": "a list",
    "dict_type": "a mapping",
    "model_type": "a mapping",
    "model_attributes_type": "a mapping",
}
_PATTERN_WORDS = {
    r"^[a-z0-9]+(-[a-z0-9]+)*$": "lowercase kebab-case (like 'code-review')",
    r"^[0-9]+\.[0-9]+$": "a stage number like '3.5'",
}


def show(value: Any) -> str:
    """How an offending value is quoted in a message."""
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return json.dumps(value, ensure_ascii=False, default=str)


def key_path(loc: Iterable[str | int]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + part
    return out


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, sorted(set(choices)), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _field_loc(loc: tuple[Any, ...]) -> tuple[str | int, ...]:
    """Drop pydantic's union/type tags (``'list[str]'``, ``'function-after[...]'``) from a loc."""
    return tuple(
        p
        for p in loc
        if isinstance(p, int)
        or re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", p)
        and p not in {"str", "bool", "int", "list", "dict", "literal"}
    )


def _message(error: dict[str, Any], allowed_keys: KeyChoices) -> tuple[tuple[str | int, ...], str]:
    loc = _field_loc(error["loc"])
    kind = error["type"]
    value = error.get("input")
    ctx = error.get("ctx") or {}
    if kind == "missing":
        return loc, "is required"
    if kind == "extra_forbidden":
        name = str(loc[-1]) if loc else "?"
        parent = next((p for p in reversed(loc[:-1]) if isinstance(p, str)), "")
        return loc, "unknown key" + did_you_mean(name, allowed_keys.get(parent, allowed_keys[""]))
    if kind == "literal_error":
        expected = ctx.get("expected", "")
        options = re.findall(r"'([^']*)'", expected)
        hint = did_you_mean(str(value), options) if isinstance(value, str) else ""
        return loc, f"must be one of {', '.join(options)}; got {show(value)}{hint}"
    if kind in _TYPE_WORDS:
        return loc, f"must be {_TYPE_WORDS[kind]}, got {show(value)}"
    if kind == "string_pattern_mismatch":
        pattern = ctx.get("pattern", "")
        return (
            loc,
            f"must be {_PATTERN_WORDS.get(pattern, 'matching ' + pattern)}, got {show(value)}",
        )
    if kind in ("greater_than_equal", "less_than_equal"):
        bound = ctx.get("ge", ctx.get("le"))
        op = ">=" if kind == "greater_than_equal" else "<="
        return loc, f"must be {op} {bound}, got {show(value)}"
    if kind == "value_error":
        text = str(ctx.get("error", error["msg"]))
        if text.startswith("reserved:"):
            key = text.split(":", 1)[1]
            return (*loc, key), "is reserved for a future release and cannot be used yet"
        if ":" in text:
            key, message = text.split(":", 1)
            return (*loc, key), message
        return loc, text
    return loc, error["msg"]


def diagnostics_from(
    exc: ValidationError,
    path: str,
    line_of: Any,
    allowed_keys: KeyChoices,
) -> list[Diagnostic]:
    """One diagnostic per distinct key path (union members collapse into one)."""
    seen: dict[tuple[str | int, ...], Diagnostic] = {}
    for error in exc.errors():
        loc, message = _message(dict(error), allowed_keys)
        if loc in seen:
            continue
        seen[loc] = Diagnostic(path, line_of(loc), key_path(loc), message)
    return list(seen.values())
