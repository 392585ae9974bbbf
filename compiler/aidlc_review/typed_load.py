"""One way to read a file into a typed object, and one way to say what is wrong with it.

Every file the tool reads or keeps is validated into a strict pydantic model
(``extra="forbid"``). A ``ValidationError`` never leaves this module: it becomes
breadcrumbs, ``file:line: key: message`` where the format knows lines (YAML, TOML)
and ``file: $.key[2].name: message`` where it does not (JSON), raised together as
``ValidationFailed`` (exit 2). An unknown key is answered with "did you mean" when a
known key at that level is close.
"""

from __future__ import annotations

import difflib
import json
import re
import types
import typing
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from aidlc_review.errors import Diagnostic, InvalidInput, ValidationFailed

M = TypeVar("M", bound=BaseModel)
# Known keys by parent key ("" = top level), for "did you mean" on unknown keys.
KeyChoices = dict[str, list[str]]
LineOf = Callable[[tuple[str | int, ...]], int]

_TYPE_WORDS = {
    "bool_type": "a boolean (true or false)",
    "bool_parsing": "a boolean (true or false)",
    "string_type": "a string",
    "int_type": "an integer",
    "int_parsing": "an integer",
    "int_from_float": "an integer",
    "float_type": "a number",
    "float_parsing": "a number",
    "finite_number": "a finite number",
    "list_type": "a list",
    "tuple_type": "a list",
    "dict_type": "a mapping",
    "model_type": "a mapping",
    "model_attributes_type": "a mapping",
    "enum": "one of the known values",
}
_PATTERN_WORDS = {
    r"^[a-z0-9]+(-[a-z0-9]+)*$": "lowercase kebab-case (like 'code-review')",
    r"^[0-9]+\.[0-9]+$": "a stage number like '3.5'",
}
# pydantic's tags for union members and validators, which are not keys of the document
_TYPE_TAGS = frozenset({"str", "bool", "int", "float", "list", "dict", "literal", "none"})
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


def show(value: Any) -> str:
    """How an offending value is quoted in a message."""
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return json.dumps(value, ensure_ascii=False, default=str)


def key_path(loc: Iterable[str | int], root: str = "") -> str:
    """``consumes[2].required`` (root ""), ``$.files["src/a.py"]`` (root "$")."""
    out = root
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _PLAIN_KEY.fullmatch(part):
            out += ("." if out else "") + part
        else:
            out += f"[{json.dumps(part, ensure_ascii=False)}]"
    return out


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, sorted(set(choices)), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _field_loc(loc: tuple[Any, ...]) -> tuple[str | int, ...]:
    """Drop pydantic's union/type tags (``'list[str]'``, ``'function-after[...]'``) from a loc."""
    return tuple(p for p in loc if isinstance(p, int) or ("[" not in p and p not in _TYPE_TAGS))


def describe(error: Any, allowed_keys: KeyChoices) -> tuple[tuple[str | int, ...], str]:
    """The one wording of a pydantic error: (document location, message)."""
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
    if kind in ("literal_error", "enum"):
        return loc, _not_one_of(str(ctx.get("expected", "")), value)
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
        return _value_error(loc, str(ctx.get("error", error["msg"])))
    return loc, error["msg"]


def _not_one_of(expected: str, value: Any) -> str:
    options = re.findall(r"'([^']*)'", expected) or [expected]
    hint = did_you_mean(value, options) if isinstance(value, str) and value not in options else ""
    return f"must be one of {', '.join(options)}; got {show(value)}{hint}"


def _value_error(loc: tuple[str | int, ...], text: str) -> tuple[tuple[str | int, ...], str]:
    """A validator's own message; ``key: message`` names a key below ``loc``."""
    if text.startswith("reserved:"):
        key = text.split(":", 1)[1]
        return (*loc, key), "is reserved for a future release and cannot be used yet"
    head, sep, message = text.partition(":")
    if sep and _PLAIN_KEY.fullmatch(head):
        return (*loc, head), message
    return loc, text


def keys_of(model: type[BaseModel]) -> KeyChoices:
    """Every key the model knows, by parent key, read from the model itself."""
    choices: KeyChoices = {}
    pending: list[tuple[str, type[BaseModel]]] = [("", model)]
    while pending:
        parent, current = pending.pop()
        if parent in choices:
            continue
        choices[parent] = sorted(f.alias or name for name, f in current.model_fields.items())
        for name, field in current.model_fields.items():
            for sub in _models_in(field.annotation):
                pending.append((field.alias or name, sub))
    return choices


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    args = typing.get_args(annotation)
    if isinstance(annotation, types.UnionType) or args:
        return [m for arg in args for m in _models_in(arg)]
    return []


def diagnostics_from(
    exc: ValidationError,
    shown: str,
    line_of: LineOf | None,
    allowed_keys: KeyChoices,
    root: str = "",
) -> list[Diagnostic]:
    """One diagnostic per distinct key path (union members collapse into one)."""
    seen: dict[tuple[str | int, ...], Diagnostic] = {}
    for error in exc.errors():
        loc, message = describe(error, allowed_keys)
        if loc not in seen:
            line = line_of(loc) if line_of else 0
            seen[loc] = Diagnostic(shown, line, key_path(loc, root), message)
    return list(seen.values())


def check(
    model: type[M],
    data: Any,
    shown: str,
    *,
    line_of: LineOf | None = None,
    root: str = "$",
) -> tuple[M | None, list[Diagnostic]]:
    """``data`` as ``model`` and no problems, or None and every problem (to collect more)."""
    try:
        return model.model_validate(data), []
    except ValidationError as exc:
        return None, diagnostics_from(exc, shown, line_of, keys_of(model), root)


def validate(
    model: type[M],
    data: Any,
    shown: str,
    *,
    line_of: LineOf | None = None,
    root: str = "$",
    what: str = "",
    hint: str = "",
) -> M:
    """``data`` as ``model``, or ``ValidationFailed`` with every problem as a breadcrumb."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        found = diagnostics_from(exc, shown, line_of, keys_of(model), root)
        raise refusal(found, what, hint) from None


def parse_json(model: type[M], raw: bytes, shown: str, *, what: str = "", hint: str = "") -> M:
    """JSON bytes as ``model`` (JSON rules: enums from their values, strict models stay strict).

    ``what`` names the kind of file and ``hint`` what to do about it:
    ``file: not a valid <what>: $.key: message; <hint>``.
    """
    try:
        json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise refusal([Diagnostic(shown, 0, "", f"not JSON: {exc}")], what, hint) from None
    try:
        return model.model_validate_json(raw)
    except ValidationError as exc:
        found = diagnostics_from(exc, shown, None, keys_of(model), "$")
        raise refusal(found, what, hint) from None


def load_json(model: type[M], path: Path, *, what: str = "", hint: str = "") -> M:
    """Read ``path`` and parse it as ``model``; an unreadable file is bad input too."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InvalidInput(f"{path}: cannot read: {exc.strerror}") from None
    return parse_json(model, raw, str(path), what=what, hint=hint)


def refusal(found: list[Diagnostic], what: str = "", hint: str = "") -> InvalidInput:
    """The one exception for a file that failed validation (exit 2)."""
    if not what and not hint:
        return ValidationFailed(found)
    shown = found[0].path
    problems = "; ".join(
        f"{d.key}: {d.message}" if d.key else d.message for d in sorted(set(found))
    )
    head = f"{shown}: not a valid {what}: " if what else f"{shown}: "
    return InvalidInput(head + problems + (f"; {hint}" if hint else ""))
