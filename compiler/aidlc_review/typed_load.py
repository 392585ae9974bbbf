"""One way to read a file into a typed object, and one way to say what is wrong with it.

Every file the tool reads or keeps is validated into a strict pydantic model
(``extra="forbid"``). A ``ValidationError`` never leaves this module: it becomes
breadcrumbs, ``file:line: key: message`` where the format knows lines (YAML, TOML)
and ``file: $.key[2].name: message`` where it does not (JSON), raised together as
``ValidationFailed`` (exit 2). An unknown key is answered with "did you mean" when a
known key at that level is close.

JSON is read as untrusted (``read_json``): a document nested deeper than
``MAX_JSON_DEPTH`` arrays or objects is refused before a parser recurses into it
(``$.writes[0][0]…: nested deeper than 64 levels``), and an object that names a key twice
is refused (``$.writes[0]: duplicate key "path"``) rather than keeping the last value
silently, so no two readers of one file can see different documents.
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

from aidlc_review.diagnostics import Diagnostic
from aidlc_review.errors import InvalidInput, ValidationFailed

M = TypeVar("M", bound=BaseModel)
# Known keys by parent key ("" = top level), for "did you mean" on unknown keys.
KeyChoices = dict[str, list[str]]
LineOf = Callable[[tuple[str | int, ...]], int]
Loc = tuple[str | int, ...]

# Deeper than any document the tool writes (a findings document is 6 levels deep), far
# shallower than the interpreter's recursion limit, which json.loads would hit first.
MAX_JSON_DEPTH = 64
_JSON_STRING = rb'"[^"\\]*(?:\\.[^"\\]*)*"'  # escapes included
# A string as one token, or the punctuation that shapes the document (a lone quote opens
# a string that never ends).
_JSON_TOKEN = re.compile(_JSON_STRING + rb'|[\[\]{},:]|"', re.DOTALL)
_STRINGS = re.compile(_JSON_STRING, re.DOTALL)
_AS_BRACKETS = bytes.maketrans(b"{}", b"[]")
_NOT_BRACKETS = bytes(set(range(256)) - set(b"[]{}"))

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
    read_json(raw, shown, what=what, hint=hint)
    try:
        return model.model_validate_json(raw)
    except ValidationError as exc:
        found = diagnostics_from(exc, shown, None, keys_of(model), "$")
        raise refusal(found, what, hint) from None


def loose_json(raw: bytes) -> Any | None:
    """Untrusted JSON bytes as plain data for a caller that leaves every fault to a strict
    reader after it (``read_json``, ``parse_json``): None for bytes that are not JSON or
    are nested too deep to parse without exhausting the stack."""
    if too_deep(raw) is not None:
        return None
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        return None


def read_json(raw: bytes | str, shown: str, *, what: str = "", hint: str = "") -> Any:
    """Untrusted JSON text as plain data; not JSON, too deep or a duplicate key is a refusal."""
    data = raw.encode() if isinstance(raw, str) else raw
    deep = too_deep(data)
    if deep is not None:
        message = f"nested deeper than {MAX_JSON_DEPTH} levels"
        raise refusal([Diagnostic(shown, 0, key_path(deep, "$"), message)], what, hint)
    twice: list[_Twice] = []
    try:
        parsed = json.loads(data, object_pairs_hook=lambda pairs: _object(pairs, twice))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise refusal([Diagnostic(shown, 0, "", f"not JSON: {exc}")], what, hint) from None
    if twice:
        found = [
            Diagnostic(shown, 0, key_path(loc, "$"), f"duplicate key {show(obj.duplicate)}")
            for loc, obj in _objects(parsed)
            if isinstance(obj, _Twice)
        ]
        raise refusal(found, what, hint)
    return parsed


def too_deep(raw: bytes, limit: int = MAX_JSON_DEPTH) -> Loc | None:
    """Where the first array or object nested deeper than ``limit`` opens, or None.

    It reads the document's shape only (each string is one regex token), so a file
    nested 100 000 deep is refused in milliseconds, before json, which recurses, sees it.
    Malformed text is left to the parser to name.
    """
    if raw.count(b"[") + raw.count(b"{") <= limit or not _deeper_than(raw, limit):
        return None
    loc: list[str | int] = []  # the open containers' current keys and indexes
    objects: list[bool] = []  # whether each open container is an object
    wants_key = False
    for match in _JSON_TOKEN.finditer(raw):
        token = match.group()
        if token in (b"[", b"{"):
            if len(objects) == limit:
                return tuple(loc)
            objects.append(token == b"{")
            loc.append(0)
            wants_key = token == b"{"
        elif token in (b"]", b"}"):
            if not objects:
                return None
            objects.pop()
            loc.pop()
            wants_key = False
        elif token == b",":
            wants_key = bool(objects) and objects[-1]
            if objects and not objects[-1]:
                loc[-1] = int(loc[-1]) + 1
        elif token == b'"':
            return None
        elif wants_key:
            loc[-1] = _key_text(token)
            wants_key = False
    return None


def _deeper_than(raw: bytes, limit: int) -> bool:
    """The fast answer: strings dropped, brackets only; each round removes the innermost
    pairs (one level), so anything left after ``limit`` rounds is deeper (or unbalanced)."""
    shape = _STRINGS.sub(b"", raw).translate(_AS_BRACKETS, _NOT_BRACKETS)
    for _ in range(limit):
        if not shape:
            return False
        shape = shape.replace(b"[]", b"")
    return bool(shape)


def _key_text(token: bytes) -> str:
    try:
        return str(json.loads(token))
    except ValueError:
        return token[1:-1].decode("utf-8", "replace")


class _Twice(dict[str, Any]):
    """A JSON object that named ``duplicate`` more than once."""

    duplicate: str


def _object(pairs: list[tuple[str, Any]], twice: list[_Twice]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) == len(pairs):
        return obj
    marked = _Twice(obj)
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            marked.duplicate = key
            break
        seen.add(key)
    twice.append(marked)
    return marked


def _objects(data: Any) -> list[tuple[Loc, dict[str, Any]]]:
    """Every object in ``data`` with its location, in document order (depth is bounded)."""
    found: list[tuple[Loc, dict[str, Any]]] = []
    pending: list[tuple[Loc, Any]] = [((), data)]
    while pending:
        loc, value = pending.pop()
        if isinstance(value, dict):
            found.append((loc, value))
            children: Iterable[tuple[str | int, Any]] = value.items()
        elif isinstance(value, list):
            children = enumerate(value)
        else:
            continue
        pending.extend(reversed([((*loc, key), child) for key, child in children]))
    return found


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
