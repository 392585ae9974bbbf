"""Spec of ``review.source.git_drift``: the base, git's listing, changes no local setting hides."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from aidlc_review.errors import InvalidInput
from aidlc_review.review.source import git_drift
from aidlc_review.review.source.git_drift import (
    UPSTREAM_ENGINE,
    bolt_worktrees,
    changes_since,
    engine_owned,
    is_git_checkout,
    list_files,
    listed_once,
    look_again,
    one_look,
    resolve_base,
    show_at,
)
from tests.review.workspace import counted_calls, write

AUTHOR = ("-c", "user.name=t", "-c", "user.email=t@example.invalid")


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)
    return done.stdout.decode().strip()


def commit(root: Path, message: str = "c") -> str:
    git(root, "add", "-A")
    git(root, *AUTHOR, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD")


def repo(tmp_path: Path, files: dict[str, str]) -> tuple[Path, str]:
    """A repository whose one commit holds ``files``; returns it and the commit."""
    root = tmp_path / "ws"
    for rel, text in files.items():
        write(root / rel, text)
    root.mkdir(exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    return root, commit(root, "base")


def test_a_folder_is_a_git_checkout_when_it_holds_a_git_entry(tmp_path: Path) -> None:
    assert not is_git_checkout(tmp_path)
    (tmp_path / ".git").write_text("gitdir: /elsewhere\n")  # a worktree's link counts too
    assert is_git_checkout(tmp_path)


def test_the_base_is_head_by_default_and_none_outside_git(tmp_path: Path) -> None:
    root, head = repo(tmp_path, {"app.py": "x = 1\n"})
    assert resolve_base(root, None) == head
    plain = tmp_path / "plain"
    plain.mkdir()
    assert resolve_base(plain, None) is None
    assert resolve_base(plain, "main") is None  # outside git a revision is not even read


def test_a_repository_without_a_commit_has_no_base(tmp_path: Path) -> None:
    root = tmp_path / "empty"
    root.mkdir()
    git(root, "init", "-q")
    assert resolve_base(root, None) is None


def test_a_named_revision_resolves_to_its_commit_id(tmp_path: Path) -> None:
    root, first = repo(tmp_path, {"app.py": "x = 1\n"})
    git(root, *AUTHOR, "tag", "-a", "v1", "-m", "release")  # an annotated tag: its own object
    write(root / "app.py", "x = 2\n")
    commit(root)
    assert resolve_base(root, "v1") == first
    assert resolve_base(root, "HEAD~1") == first
    assert resolve_base(root, first[:10]) == first


@pytest.mark.parametrize("revision", ["v9", "HEAD:app.py", "HEAD^{tree}"])
def test_a_revision_that_is_no_commit_is_bad_input(tmp_path: Path, revision: str) -> None:
    root, _ = repo(tmp_path, {"app.py": "x = 1\n"})
    with pytest.raises(InvalidInput) as refused:
        resolve_base(root, revision)
    assert str(refused.value) == f"base-revision {revision!r}: not a commit in {root}"


def test_a_file_is_shown_as_it_stood_at_a_commit(tmp_path: Path) -> None:
    root, base = repo(tmp_path, {"src/app.py": "x = 1\n"})
    write(root / "src/app.py", "x = 2\n")
    commit(root)
    assert show_at(root, base, "src/app.py") == "x = 1\n"
    assert show_at(root, "HEAD", "src/app.py") == "x = 2\n"
    assert show_at(root, base, "src/missing.py") is None


def test_only_an_upstream_project_has_engine_owned_paths(tmp_path: Path) -> None:
    root, _ = repo(tmp_path, {"app.py": "x = 1\n"})
    assert engine_owned(root) == []
    write(root / UPSTREAM_ENGINE, "// upstream's engine\n")
    assert engine_owned(root) == ["aidlc"]


def test_only_registered_bolt_worktrees_under_the_swarm_folder_are_engine_owned(
    tmp_path: Path,
) -> None:
    root, _ = repo(tmp_path, {"app.py": "x = 1\n"})
    write(root / UPSTREAM_ENGINE, "// upstream's engine\n")
    for name in ("bolt-u2", "bolt-u1", "feature-u3"):
        git(root, "worktree", "add", "-q", "-b", name, f".aidlc/worktrees/{name}")
    git(root, "worktree", "add", "-q", "-b", "bolt-u4", str(tmp_path / "bolt-u4"))
    fake = root / ".aidlc/worktrees/bolt-u5"  # looks like one, but git never registered it
    write(fake / ".git", "gitdir: /nowhere\n")
    assert bolt_worktrees(root) == [".aidlc/worktrees/bolt-u1", ".aidlc/worktrees/bolt-u2"]
    assert engine_owned(root) == ["aidlc", ".aidlc/worktrees/bolt-u1", ".aidlc/worktrees/bolt-u2"]


def test_outside_git_no_worktree_and_no_listing(tmp_path: Path) -> None:
    assert bolt_worktrees(tmp_path) == []
    assert list_files(tmp_path) is None
    assert changes_since(tmp_path, "HEAD") is None


def test_the_listing_splits_tracked_from_untracked_and_keeps_tree_ignores(tmp_path: Path) -> None:
    root, _ = repo(tmp_path, {"app.py": "x = 1\n", ".gitignore": "build/\n"})
    write(root / "new.py", "y = 1\n")
    write(root / "build/out.py", "z = 1\n")
    write(root / "staged.py", "s = 1\n")
    git(root, "add", "staged.py")
    listing = list_files(root)
    assert listing is not None
    assert listing.tracked == {".gitignore", "app.py", "staged.py"}
    assert listing.untracked == {"new.py"}
    assert listing.every == {".gitignore", "app.py", "staged.py", "new.py"}


def test_excludes_local_to_the_clone_hide_no_file(tmp_path: Path) -> None:
    root, _ = repo(tmp_path, {"app.py": "x = 1\n"})
    write(root / ".git/info/exclude", "hidden_info.py\n")
    write(tmp_path / "global-excludes", "hidden_global.py\n")
    git(root, "config", "core.excludesFile", str(tmp_path / "global-excludes"))
    write(root / "hidden_info.py", "a = 1\n")
    write(root / "hidden_global.py", "b = 1\n")
    listing = list_files(root)
    assert listing is not None and listing.untracked == {"hidden_info.py", "hidden_global.py"}


def test_a_gitignore_cannot_hide_itself(tmp_path: Path) -> None:
    root, _ = repo(tmp_path, {"app.py": "x = 1\n"})
    write(root / "pkg/.gitignore", ".gitignore\n*.py\n")
    write(root / "pkg/mod.py", "m = 1\n")
    listing = list_files(root)
    assert listing is not None and listing.untracked == {"pkg/.gitignore"}


def test_an_untracked_nested_repository_is_listed_file_by_file(tmp_path: Path) -> None:
    root, _ = repo(tmp_path, {"app.py": "x = 1\n"})
    nested = root / "vendor/lib"
    write(nested / "core.py", "c = 1\n")
    write(nested / "sub/deep.py", "d = 1\n")
    git(nested, "init", "-q")
    listing = list_files(root)
    assert listing is not None
    assert listing.untracked == {"vendor/lib/core.py", "vendor/lib/sub/deep.py"}


def test_each_kind_of_change_since_the_base_is_named(tmp_path: Path) -> None:
    root, base = repo(
        tmp_path, {"same.py": "s = 1\n", "edited.py": "e = 1\n", "gone.py": "g = 1\n"}
    )
    write(root / "edited.py", "e = 2\n")
    (root / "gone.py").unlink()
    write(root / "staged.py", "n = 1\n")
    git(root, "add", "staged.py")
    write(root / "loose.py", "l = 1\n")
    assert changes_since(root, base) == {
        "edited.py": "changed",
        "gone.py": "deleted",
        "staged.py": "added",
        "loose.py": "untracked",
    }


def test_a_change_committed_after_the_base_is_still_a_change_since_it(tmp_path: Path) -> None:
    root, base = repo(tmp_path, {"app.py": "x = 1\n"})
    write(root / "app.py", "x = 2\n")
    write(root / "later.py", "y = 1\n")
    commit(root)
    assert changes_since(root, base) == {"app.py": "changed", "later.py": "added"}
    assert changes_since(root, "HEAD") == {}


def test_a_crlf_checkout_of_the_same_text_is_no_change(tmp_path: Path) -> None:
    root, base = repo(tmp_path, {"app.py": "x = 1\ny = 2\n"})
    (root / "app.py").write_bytes(b"x = 1\r\ny = 2\r\n")
    assert changes_since(root, base) == {}
    (root / "app.py").write_bytes(b"x = 1\r\ny = 3\r\n")
    assert changes_since(root, base) == {"app.py": "changed"}


def test_a_symlink_and_a_file_holding_its_target_are_not_the_same(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    write(root / "real.py", "r = 1\n")
    os.symlink("real.py", root / "link.py")
    git(root, "init", "-q", "-b", "main")
    base = commit(root)
    assert changes_since(root, base) == {}
    (root / "link.py").unlink()
    (root / "link.py").write_text("real.py")  # the link's own bytes, as a regular file
    assert changes_since(root, base) == {"link.py": "changed"}


def test_a_change_git_is_told_to_assume_unchanged_is_still_found(tmp_path: Path) -> None:
    root, base = repo(tmp_path, {"app.py": "x = 1\n"})
    git(root, "update-index", "--assume-unchanged", "app.py")
    write(root / "app.py", "x = 2\n")
    assert git(root, "status", "--porcelain") == ""  # git itself no longer sees it
    assert changes_since(root, base) == {"app.py": "changed"}


def test_a_replace_ref_standing_in_for_the_base_hides_nothing(tmp_path: Path) -> None:
    root, base = repo(tmp_path, {"app.py": "x = 1\n"})
    git(root, "checkout", "-q", "-b", "other")
    write(root / "app.py", "x = 2\n")
    lookalike = commit(root)
    git(root, "checkout", "-q", "main")
    write(root / "app.py", "x = 2\n")
    git(root, "replace", base, lookalike)
    assert git(root, "show", f"{base}:app.py") == "x = 2"  # git itself is fooled
    assert changes_since(root, base) == {"app.py": "changed"}


def test_a_base_git_does_not_have_cannot_be_compared_with(tmp_path: Path) -> None:
    root, _ = repo(tmp_path, {"app.py": "x = 1\n"})
    assert changes_since(root, "0" * 40) is None


def test_within_one_look_a_commit_named_by_its_id_is_asked_of_git_once(
    tmp_path: Path, monkeypatch
) -> None:
    root, first = repo(tmp_path, {"app.py": "x = 1\n"})
    asked = counted_calls(monkeypatch, git_drift, "_git")
    with one_look():
        answers = [(resolve_base(root, first), show_at(root, first, "app.py")) for _ in range(3)]
        assert changes_since(root, first) == changes_since(root, first) == {}
    assert answers == [(first, "x = 1\n")] * 3
    # rev-parse, show and ls-tree once each; the tree is listed at each look (one ls-files)
    assert len(asked) == 3 + 2


def test_head_and_a_branch_are_asked_every_time_even_within_one_look(tmp_path: Path) -> None:
    root, first = repo(tmp_path, {"app.py": "x = 1\n"})
    with one_look():
        assert resolve_base(root, None) == resolve_base(root, "main") == first
        write(root / "app.py", "x = 2\n")
        second = commit(root)
        assert resolve_base(root, None) == resolve_base(root, "main") == second
        assert show_at(root, "main", "app.py") == "x = 2\n"
        assert show_at(root, first, "app.py") == "x = 1\n"


def test_outside_one_look_every_question_goes_to_git(tmp_path: Path, monkeypatch) -> None:
    root, first = repo(tmp_path, {"app.py": "x = 1\n"})
    asked = counted_calls(monkeypatch, git_drift, "_git")
    resolve_base(root, first)
    resolve_base(root, first)
    assert len(asked) == 2


def test_listed_once_lists_the_tree_once_until_it_is_told_to_look_again(tmp_path: Path) -> None:
    root, _ = repo(tmp_path, {"app.py": "x = 1\n"})
    with listed_once():
        before = list_files(root)
        write(root / "late.py", "y = 1\n")  # written meanwhile: not seen until look_again
        assert list_files(root) == before
        look_again()
        after = list_files(root)
        assert after is not None and "late.py" in after.untracked
        write(root / "later.py", "z = 1\n")
        again = list_files(root)
        assert again is not None and "later.py" in again.untracked  # no longer listed once
    write(root / "last.py", "w = 1\n")
    outside = list_files(root)
    assert outside is not None and "last.py" in outside.untracked


def test_one_listing_tells_tracked_from_untracked_files(tmp_path: Path) -> None:
    root, _ = repo(tmp_path, {"app.py": "x = 1\n", "kept.log": "tracked, then ignored\n"})
    write(root / ".gitignore", "*.log\n")
    write(root / "new file.py", "y = 1\n")  # a space in the name
    write(root / "skipped.log", "ignored\n")
    git(root, "update-index", "--skip-worktree", "app.py")  # tagged S, still tracked
    nested = root / "vendor" / "lib"
    write(nested / "mod.py", "z = 1\n")
    git(nested, "init", "-q")  # an untracked nested repository: listed file by file
    listing = list_files(root)
    assert listing is not None
    assert listing.tracked == {"app.py", "kept.log"}
    assert listing.untracked == {".gitignore", "new file.py", "vendor/lib/mod.py"}
