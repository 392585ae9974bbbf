"""``harness.listing``: the one list of a harness's definition files, built with ``os``
alone, is the list the globs it replaced produced (``pathlib`` is the oracle here)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from aidlc_review.errors import InvalidInput
from aidlc_review.harness import listing
from aidlc_review.harness.layout import HarnessLayout


def _tricky_harness(root: Path) -> Path:
    """Names that tell a prefix test from a glob and a string sort from a parts sort."""
    stages = root / "stages"
    for folder in ("a", "a-b", "a.b", ".hidden", "B"):
        (stages / folder).mkdir(parents=True)
        (stages / folder / "s.md").write_text("x")
    (stages / "a" / ".dot.md").write_text("x")
    (stages / "a" / "s.MD").write_text("x")  # case-sensitive: no match
    (stages / "a" / "folder.md").mkdir()  # a folder is no file
    (stages / "a" / "dangling.md").symlink_to(root / "nowhere")
    (stages / "a" / "linked.md").symlink_to(stages / "B" / "s.md")
    (stages / "loose.md").write_text("x")  # not in a subfolder
    (stages / "linked-folder").symlink_to(stages / "a-b", target_is_directory=True)
    for folder, names in {
        "scopes": ["aidlc-.md", "aidlc-x.md", "aidlc.md", "x-aidlc-y.md", "aidlc-y.txt"],
        "agents": [".md", "a.md", "b.mdx", "Z.md"],
        "sensors": ["aidlc-lint.md", "lint.md"],
    }.items():
        (root / folder).mkdir()
        for name in names:
            (root / folder / name).write_text("x")
    return root


def _globbed(root: Path) -> list[str]:
    """What HarnessLayout listed before ``listing`` existed: sorted pathlib globs."""
    groups = [
        (root / "stages", "*/*.md"),
        (root / "scopes", "aidlc-*.md"),
        (root / "agents", "*.md"),
        (root / "sensors", "aidlc-*.md"),
    ]
    found = []
    for folder, pattern in groups:
        if folder.is_dir():
            found += [str(p) for p in sorted(folder.glob(pattern)) if p.is_file()]
    return found


def test_the_listing_is_what_the_sorted_globs_listed(tmp_path: Path) -> None:
    root = _tricky_harness(tmp_path / "h")
    listed = listing.definition_files(str(root), str(root / "stages"))
    assert listed == _globbed(root)
    shown = [listing.display(str(root), path) for path in listed]
    assert shown[:3] == ["stages/.hidden/s.md", "stages/B/s.md", "stages/a/.dot.md"]
    assert "stages/a/dangling.md" not in shown and "stages/loose.md" not in shown
    assert "stages/linked-folder/s.md" in shown
    assert [s for s in shown if s.startswith("scopes/")] == [
        "scopes/aidlc-.md",
        "scopes/aidlc-x.md",
    ]


def test_the_layout_lists_through_it(tmp_path: Path) -> None:
    root = _tricky_harness(tmp_path / "h")
    layout = HarnessLayout.at(root)
    assert [str(p) for p in layout.input_files()] == _globbed(root)
    assert [shown for _, shown in layout.agent_files()] == [
        "agents/.md",
        "agents/Z.md",
        "agents/a.md",
    ]


def test_missing_folders_list_nothing(tmp_path: Path) -> None:
    (tmp_path / "stages").mkdir()
    assert listing.definition_files(str(tmp_path), str(tmp_path / "stages")) == []


def test_an_installed_harness_keeps_its_stages_under_aidlc_common(tmp_path: Path) -> None:
    (tmp_path / "aidlc-common" / "stages").mkdir(parents=True)
    (tmp_path / "stages").mkdir()
    assert listing.locate(str(tmp_path)) == (
        str(tmp_path.resolve()),
        str(tmp_path.resolve() / "aidlc-common" / "stages"),
    )


def test_a_symlinked_harness_is_located_at_its_resolved_root(tmp_path: Path) -> None:
    (tmp_path / "real" / "stages").mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "real")
    root, stages = listing.locate(str(tmp_path / "link"))
    assert (root, stages) == (str(tmp_path / "real"), os.path.join(tmp_path / "real", "stages"))


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: None, "harness directory not found"),
        (lambda p: p.mkdir(), "not an AI-DLC harness (no aidlc-common/stages/ or stages/ folder)"),
    ],
)
def test_a_folder_that_is_no_harness_is_named(tmp_path: Path, make, message: str) -> None:
    make(tmp_path / "h")
    with pytest.raises(InvalidInput) as raised:
        listing.locate(str(tmp_path / "h"))
    assert str(raised.value) == f"{tmp_path / 'h'}: {message}"


def test_display_refuses_a_path_outside_the_root(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="is not under"):
        listing.display(str(tmp_path / "h"), str(tmp_path / "h2" / "x.md"))
