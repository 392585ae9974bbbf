"""Split a Markdown file into YAML frontmatter and body, keeping line numbers.

A UTF-8 BOM and CRLF line endings are accepted. YAML is parsed with ruamel's
C-backed safe loader (fast); when a breadcrumb needs a line, the same C parser
composes the node tree, which knows the source line of every key and list item.
The pure-Python round-trip loader runs only when the C loader refuses the text.
"""

from __future__ import annotations

import copy
import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import MarkedYAMLError
from ruamel.yaml.nodes import MappingNode, Node, SequenceNode

from aidlc_review.diagnostics import Diagnostic

FENCE = "---"


@dataclass
class Document:
    """A parsed definition file: frontmatter mapping, body text, and where it came from."""

    path: Path
    display_path: str
    data: dict[str, Any]
    body: str
    first_line: int  # file line (1-based) of the first frontmatter line
    yaml_text: str = field(repr=False, default="")
    _tree: Any = field(repr=False, default=None)

    def line_of(self, loc: tuple[str | int, ...]) -> int:
        """The file line of the YAML node at ``loc`` (nearest existing ancestor).

        Lines come from the C parser's node tree; the round-trip tree is used only when
        the C loader could not read the file (``_load_fast`` kept it then)."""
        if self._tree is None:
            self._tree = _FAST.compose(self.yaml_text)
        if isinstance(self._tree, Node):
            return self.first_line + _composed_line(self._tree, loc)
        return self.first_line + node_line(self._tree, loc)


class FrontmatterError(Exception):
    def __init__(self, diagnostic: Diagnostic):
        self.diagnostic = diagnostic
        super().__init__(str(diagnostic))


def make_yaml() -> YAML:
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    return yaml


_FAST = YAML(typ="safe", pure=False)


@functools.lru_cache(maxsize=1024)
def parse_plain(yaml_text: str) -> Any:
    """The safe loader's data for one text, kept per process: a process that compiles many
    times (Bolt, a differential run) re-reads mostly unchanged files. Failures are not kept.
    Shared: callers copy it (``_fresh``, ``to_plain``) and never change it."""
    return _FAST.load(yaml_text)


def _fresh(value: Any) -> Any:
    """A private copy of parsed data, so no caller can change what the memo hands out."""
    if isinstance(value, dict):
        return {key: _fresh(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_fresh(item) for item in value]
    if isinstance(value, (str, int, float, bool, bytes, type(None))):
        return value
    return copy.deepcopy(value)


def _load_fast(yaml_text: str) -> tuple[Any, Any]:
    """(plain data, round-trip tree or None). The slow loader runs only when the fast one fails,
    so its error message (with the line) is the one reported."""
    try:
        return _fresh(parse_plain(yaml_text)), None
    except Exception:  # any C-loader failure: let the round-trip loader decide and explain
        tree = make_yaml().load(yaml_text)
        return to_plain(tree), tree


MAX_DEPTH = 100  # far beyond any definition; deeper input would exhaust the parser's stack


def too_deep(text: str) -> bool:
    """A cheap upper bound on YAML nesting, checked before parsing: open brackets, and
    indentation steps (a block sequence or mapping nests by indenting)."""
    brackets = text.count("[") + text.count("{")
    if brackets > MAX_DEPTH and _bracket_depth(text) > MAX_DEPTH:
        return True
    indents = {len(line) - len(line.lstrip(" -")) for line in text.split("\n") if line.strip()}
    return len(indents) > MAX_DEPTH


def _bracket_depth(text: str) -> int:
    """The deepest nesting of flow brackets (only asked when there are enough of them)."""
    depth = deepest = 0
    for char in text:
        if char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth = max(0, depth - 1)
    return deepest


def decode_text(raw: bytes) -> str:
    text = raw.decode("utf-8-sig")
    return text.replace("\r\n", "\n")


def split_frontmatter(text: str) -> tuple[str, str, int] | None:
    """Return (yaml_text, body, first_yaml_line) or None when there is no frontmatter."""
    lines = text.split("\n")
    if not lines or lines[0].rstrip() != FENCE:
        return None
    for index in range(1, len(lines)):
        if lines[index].rstrip() == FENCE:
            return "\n".join(lines[1:index]) + "\n", "\n".join(lines[index + 1 :]), 2
    return None


def read_document(path: Path, display_path: str) -> Document:
    """Read one definition file; raise FrontmatterError with a breadcrumb when unusable."""
    try:
        text = decode_text(path.read_bytes())
    except UnicodeDecodeError as exc:
        raise FrontmatterError(
            Diagnostic(display_path, 0, "", f"not UTF-8 text ({exc.reason} at byte {exc.start})")
        ) from None
    split = split_frontmatter(text)
    if split is None:
        raise FrontmatterError(
            Diagnostic(display_path, 1, "", "no YAML frontmatter (the file must start with '---')")
        )
    yaml_text, body, first_line = split
    if too_deep(yaml_text):
        raise FrontmatterError(
            Diagnostic(
                display_path, first_line, "", f"invalid YAML: nested deeper than {MAX_DEPTH}"
            )
        )
    try:
        data, tree = _load_fast(yaml_text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = first_line + (mark.line if mark else 0)
        problem = (exc.problem or exc.context or "cannot parse").strip()
        raise FrontmatterError(
            Diagnostic(display_path, line, "", f"invalid YAML: {problem}")
        ) from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise FrontmatterError(
            Diagnostic(display_path, first_line, "", "frontmatter must be a mapping of keys")
        )
    return Document(path, display_path, data, body, first_line, yaml_text, tree)


def node_line(node: Any, loc: tuple[str | int, ...]) -> int:
    """0-based line of the round-trip YAML node at ``loc`` (nearest existing ancestor)."""
    line = getattr(getattr(node, "lc", None), "line", 0) or 0
    for part in loc:
        if isinstance(node, CommentedMap) and part in node:
            line = node.lc.key(part)[0]
            node = node[part]
        elif isinstance(node, CommentedSeq) and isinstance(part, int) and part < len(node):
            line = node.lc.item(part)[0]
            node = node[part]
        else:
            break
    return line


def _composed_line(node: Node, loc: tuple[str | int, ...]) -> int:
    """``node_line`` for a composed node tree (the C parser's): a key's line, an item's line."""
    line = node.start_mark.line
    for part in loc:
        if isinstance(node, MappingNode):
            pair = next(((k, v) for k, v in node.value if k.value == str(part)), None)
            if pair is None:
                break
            line, node = pair[0].start_mark.line, pair[1]
        elif isinstance(node, SequenceNode) and isinstance(part, int) and part < len(node.value):
            node = node.value[part]
            line = node.start_mark.line
        else:
            break
    return int(line)


def to_plain(node: Any) -> Any:
    """ruamel containers -> plain dict/list/str (ruamel scalars subclass the builtins)."""
    if isinstance(node, dict):
        return {str(key): to_plain(value) for key, value in node.items()}
    if isinstance(node, list):
        return [to_plain(item) for item in node]
    if isinstance(node, bool) or node is None:
        return node
    if isinstance(node, int):
        return int(node)
    if isinstance(node, float):
        return float(node)
    if isinstance(node, str):
        return str(node)
    return node
