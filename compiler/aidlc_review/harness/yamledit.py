"""Surgical edits of a definition file's frontmatter, byte for byte outside the edit.

ruamel's C parser locates the keys (its node tree knows each key's and item's line);
the edit itself replaces only the lines of the touched top-level keys, so comments,
key order, quoting and the Markdown body elsewhere stay exactly as they were. After
an edit the text is parsed again and compared with the intended data, so an edit can
never silently change something else. Node trees and data are parsed once per text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError
from ruamel.yaml.nodes import MappingNode, Node, SequenceNode

from aidlc_review.errors import InvalidInput
from aidlc_review.harness.frontmatter import FENCE, parse_plain, to_plain

_NODES = YAML(typ="safe", pure=False)


@dataclass
class FrontmatterText:
    """A Markdown file split as lines: opening fence, frontmatter lines, the rest."""

    display: str
    lines: list[str]  # every line of the file, each with its line ending
    end: int  # index of the closing fence line
    _parsed: tuple[str, MappingNode] | None = field(default=None, repr=False, compare=False)

    @classmethod
    def parse(cls, text: str, display: str) -> FrontmatterText:
        lines = text.splitlines(keepends=True)
        if not lines or lines[0].rstrip("\r\n") != FENCE:
            raise InvalidInput(f"{display}: no YAML frontmatter (the file must start with '---')")
        for index in range(1, len(lines)):
            if lines[index].rstrip("\r\n") == FENCE:
                return cls(display, lines, index)
        raise InvalidInput(f"{display}: frontmatter is not closed by a '---' line")

    @property
    def text(self) -> str:
        return "".join(self.lines)

    @property
    def newline(self) -> str:
        return "\r\n" if self.lines[0].endswith("\r\n") else "\n"

    @property
    def _yaml_text(self) -> str:
        return "".join(self.lines[1 : self.end])

    def _root(self) -> MappingNode:
        """The frontmatter's node tree as it stands now (composed again only after an edit
        changed the lines, since one edit asks for it many times)."""
        yaml_text = self._yaml_text
        if self._parsed is not None and self._parsed[0] == yaml_text:
            return self._parsed[1]
        root = _NODES.compose(yaml_text)
        if not isinstance(root, MappingNode):
            raise InvalidInput(f"{self.display}: frontmatter must be a mapping of keys")
        self._parsed = (yaml_text, root)
        return root

    def _value(self, key: str) -> Node | None:
        """The value node of a top-level key (the first, should the key repeat)."""
        for name, value in self._root().value:
            if name.value == key:
                return cast(Node, value)
        return None

    def plain(self) -> dict[str, Any]:
        try:
            data = to_plain(parse_plain(self._yaml_text))
        except YAMLError as exc:
            raise InvalidInput(
                f"{self.display}: edited frontmatter no longer parses ({exc})"
            ) from None
        if not isinstance(data, dict):
            raise InvalidInput(f"{self.display}: frontmatter must be a mapping of keys")
        return data

    def _span(self, key: str) -> tuple[int, int] | None:
        """File line indexes [start, stop) of a top-level key and its value.

        Trailing blank lines and column-0 comments belong to what follows, so
        they are left in place.
        """
        starts = [(name.value, name.start_mark.line) for name, _ in self._root().value]
        found = [i for i, (name, _) in enumerate(starts) if name == key]
        if not found:
            return None
        position = found[0]
        start = 1 + starts[position][1]
        stop = 1 + starts[position + 1][1] if position + 1 < len(starts) else self.end
        while stop - 1 > start and _is_filler(self.lines[stop - 1]):
            stop -= 1
        return start, stop

    def item_indent(self, key: str) -> str:
        """The indentation the file uses for list items under ``key`` (default two spaces)."""
        span = self._span(key)
        if span is not None:
            for line in self.lines[span[0] + 1 : span[1]]:
                stripped = line.lstrip(" ")
                if stripped.startswith("- "):
                    return line[: len(line) - len(stripped)]
        return "  "

    def _is_flow(self, key: str) -> bool:
        value = self._value(key)
        return isinstance(value, SequenceNode | MappingNode) and bool(value.flow_style)

    def remove_key(self, key: str) -> bool:
        span = self._span(key)
        if span is None:
            return False
        del self.lines[span[0] : span[1]]
        self.end -= span[1] - span[0]
        return True

    def replace_key(self, key: str, block: list[str]) -> None:
        """Replace a key's lines with ``block`` (lines without endings), or add it at the end."""
        rendered = [line + self.newline for line in block]
        span = self._span(key)
        if span is None:
            self.lines[self.end : self.end] = rendered
            self.end += len(rendered)
            return
        self.lines[span[0] : span[1]] = rendered
        self.end += len(rendered) - (span[1] - span[0])

    def append_item(self, key: str, item: list[str]) -> None:
        """Append one list item (its lines, first one starting with '- ') to a block list."""
        indent = self.item_indent(key)
        span = self._span(key)
        if span is not None and self._is_flow(key):
            raise InvalidInput(_flow_message(self.display, key))
        value = self._value(key)
        if span is None or not isinstance(value, SequenceNode) or not value.value:
            self.replace_key(key, [f"{key}:"] + [indent + line for line in item])
            return
        rendered = [indent + line + self.newline for line in item]
        self.lines[span[1] : span[1]] = rendered
        self.end += len(rendered)

    def remove_item(self, key: str, index: int) -> None:
        """Remove one single-line item from a block list (an emptied list becomes ``[]``)."""
        seq = self._value(key)
        if not isinstance(seq, SequenceNode) or not 0 <= index < len(seq.value):
            raise InvalidInput(f"{self.display}: {key}: no list item {index} to remove")
        if len(seq.value) > 1 and self._is_flow(key):
            raise InvalidInput(_flow_message(self.display, key))
        if len(seq.value) == 1:
            self.replace_key(key, [f"{key}: []"])
            return
        line = 1 + seq.value[index].start_mark.line
        del self.lines[line]
        self.end -= 1

    def insert_after(self, anchors: tuple[str, ...], block: list[str]) -> None:
        """Insert new key lines after the first anchor key present (else at the end)."""
        rendered = [line + self.newline for line in block]
        at = self.end
        for anchor in anchors:
            span = self._span(anchor)
            if span is not None:
                at = span[1]
                break
        self.lines[at:at] = rendered
        self.end += len(rendered)


def _flow_message(display: str, key: str) -> str:
    return (
        f"{display}: {key}: a flow-style list ([a, b]) cannot be edited in place; use a block list"
    )


def _is_filler(line: str) -> bool:
    stripped = line.strip()
    return not stripped or (line.startswith("#"))


def scalar_list_block(key: str, items: list[str], indent: str) -> list[str]:
    if not items:
        return [f"{key}: []"]
    return [f"{key}:"] + [f"{indent}- {item}" for item in items]


def check_edit(edited: FrontmatterText, expected: dict[str, Any]) -> None:
    """Refuse an edit whose parsed result is not exactly the intended data."""
    after = edited.plain()
    if after != expected:
        changed = sorted(k for k in set(after) | set(expected) if after.get(k) != expected.get(k))
        raise InvalidInput(
            f"{edited.display}: cannot edit the frontmatter safely "
            f"(unexpected change in {', '.join(changed)})"
        )
