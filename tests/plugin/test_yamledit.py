"""Frontmatter edits change only the lines of the keys they touch."""

from __future__ import annotations

import pytest

from aidlc_review.errors import InvalidInput
from aidlc_review.harness.yamledit import FrontmatterText, check_edit

SOURCE = """---
slug: demo  # the stem
# who runs it
lead_agent: dev
scopes:
  - a   # first
  - b

# trailing comment stays with the next key
reviewer: rev
outputs: "quoted"
---

# Body keeps: its text
"""


def parse(text: str = SOURCE) -> FrontmatterText:
    return FrontmatterText.parse(text, "demo.md")


def test_removing_a_key_keeps_comments_blank_lines_and_quotes():
    text = parse()
    assert text.remove_key("reviewer")
    assert text.text == SOURCE.replace("reviewer: rev\n", "")


def test_appending_and_removing_list_items_is_line_exact():
    text = parse()
    text.append_item("scopes", ["- c"])
    assert text.text == SOURCE.replace("  - b\n", "  - b\n  - c\n")
    text.remove_item("scopes", 2)
    assert text.text == SOURCE


def test_removing_the_last_item_leaves_an_empty_list():
    text = parse(SOURCE.replace("  - a   # first\n", ""))
    text.remove_item("scopes", 0)
    assert text.plain()["scopes"] == []


def test_insert_after_an_anchor_key():
    text = parse()
    text.insert_after(("missing", "lead_agent"), ["plan_approval: required"])
    assert "lead_agent: dev\nplan_approval: required\nscopes:\n" in text.text


def test_flow_lists_are_refused_rather_than_rewritten():
    text = parse(SOURCE.replace("scopes:\n  - a   # first\n  - b\n", "scopes: [a, b]\n"))
    with pytest.raises(InvalidInput) as raised:
        text.append_item("scopes", ["- c"])
    assert str(raised.value) == (
        "demo.md: scopes: a flow-style list ([a, b]) cannot be edited in place; use a block list"
    )


def test_an_edit_with_an_unintended_effect_is_refused():
    text = parse()
    text.remove_key("reviewer")
    with pytest.raises(InvalidInput) as raised:
        check_edit(text, {**parse().plain(), "outputs": "other"})
    assert str(raised.value) == (
        "demo.md: cannot edit the frontmatter safely (unexpected change in outputs, reviewer)"
    )


def test_a_file_without_frontmatter_is_refused():
    with pytest.raises(InvalidInput) as raised:
        parse("# just markdown\n")
    assert str(raised.value) == "demo.md: no YAML frontmatter (the file must start with '---')"


def test_removing_an_item_that_is_not_there_is_refused_by_name():
    text = parse()
    with pytest.raises(InvalidInput) as raised:
        text.remove_item("scopes", 2)
    assert str(raised.value) == "demo.md: scopes: no list item 2 to remove"
    with pytest.raises(InvalidInput, match="^demo.md: reviewer: no list item 0 to remove$"):
        text.remove_item("reviewer", 0)
    assert text.text == SOURCE


def test_a_repeated_key_is_refused_when_the_data_is_read():
    text = parse(SOURCE.replace("reviewer: rev\n", "reviewer: rev\nreviewer: other\n"))
    with pytest.raises(InvalidInput, match="^demo.md: edited frontmatter no longer parses"):
        text.plain()
