"""Spec of ``review.source.diff``: unified diffs, the git base, and the shared byte budget."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from aidlc_review.review.source.diff import (
    MAX_NAMED,
    FileDiff,
    ShownDiff,
    diff_against,
    diff_base,
    diff_snapshots,
    file_diff,
    fit,
)
from aidlc_review.review.source.kept_source import KeptText, as_text
from tests.review.workspace import FAKE_KEY, write

AUTHOR = ("-c", "user.name=t", "-c", "user.email=t@example.invalid")


def kept(text: str) -> KeptText:
    return KeptText(text, None, f"digest-of:{text}")


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)
    return done.stdout.decode().strip()


def commit(root: Path, message: str = "c") -> str:
    git(root, "add", "-A")
    git(root, *AUTHOR, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD")


def test_two_sides_with_the_same_bytes_have_no_diff() -> None:
    assert file_diff("a.py", kept("x = 1\n"), kept("x = 1\n")) is None
    # the digest of the bytes decides, not the text shown (a redacted secret may differ)
    same = KeptText("x = 1\n", None, "d1"), KeptText("x = 2\n", None, "d1")
    assert file_diff("a.py", *same) is None


def test_a_changed_file_is_a_git_style_unified_diff_with_three_lines_of_context() -> None:
    before = "".join(f"line {n}\n" for n in range(1, 10))
    after = before.replace("line 5\n", "line five\n")
    assert file_diff("src/a.py", kept(before), kept(after)) == FileDiff(
        "src/a.py",
        "diff --git a/src/a.py b/src/a.py\n"
        "--- a/src/a.py\n"
        "+++ b/src/a.py\n"
        "@@ -2,7 +2,7 @@\n"
        " line 2\n line 3\n line 4\n-line 5\n+line five\n line 6\n line 7\n line 8\n",
    )


def test_a_file_the_base_lacks_is_a_new_file_diff_and_a_removed_one_a_deleted_file_diff() -> None:
    assert file_diff("n.py", None, kept("a\nb\n")) == FileDiff(
        "n.py",
        "diff --git a/n.py b/n.py\nnew file\n--- /dev/null\n+++ b/n.py\n@@ -0,0 +1,2 @@\n+a\n+b\n",
    )
    assert file_diff("d.py", kept("a\n"), None) == FileDiff(
        "d.py",
        "diff --git a/d.py b/d.py\ndeleted file\n--- a/d.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n",
    )


def test_a_last_line_without_a_newline_is_marked_as_git_marks_it() -> None:
    diff = file_diff("a.py", kept("x = 1\ny = 2"), kept("x = 1\ny = 3"))
    assert diff is not None
    assert diff.text.endswith(
        "-y = 2\n\\ No newline at end of file\n+y = 3\n\\ No newline at end of file\n"
    )


def test_a_side_without_text_says_why_instead_of_a_diff() -> None:
    binary = KeptText(None, "binary", "d-bin")
    assert file_diff("logo.png", kept("old\n"), binary) == FileDiff(
        "logo.png", "diff --git a/logo.png b/logo.png\n(no text diff: binary)\n"
    )
    large = KeptText(None, "larger than 1048576 bytes", "d-big")
    assert file_diff("big.json", None, large) == FileDiff(
        "big.json",
        "diff --git a/big.json b/big.json\nnew file\n(no text diff: larger than 1048576 bytes)\n",
    )


def test_snapshots_are_diffed_path_by_path_in_path_order_leaving_out_the_unchanged() -> None:
    before = {"b.py": kept("b\n"), "same.py": kept("s\n"), "gone.py": kept("g\n")}
    after = {"same.py": kept("s\n"), "b.py": kept("B\n"), "a.py": kept("a\n")}
    diffs = diff_snapshots(before, after)
    assert [d.path for d in diffs] == ["a.py", "b.py", "gone.py"]
    assert "new file" in diffs[0].text and "deleted file" in diffs[2].text
    assert diff_snapshots(before, before) == []


def test_the_claimed_files_are_diffed_against_the_base_commit(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    write(root / "src/app.py", "x = 1\n")
    write(root / "src/same.py", "s = 1\n")
    write(root / "README.md", "unclaimed\n")
    root.mkdir(exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    base = commit(root, "base")
    current = {
        "src/app.py": as_text(b"x = 2\n"),
        "src/same.py": as_text(b"s = 1\n"),
        "src/new.py": as_text(b"n = 1\n"),
    }
    diffs = diff_against(root, base, current)
    assert [d.path for d in diffs] == ["src/app.py", "src/new.py"]
    assert diffs[0].text.endswith("@@ -1 +1 @@\n-x = 1\n+x = 2\n")
    assert diffs[1].text.startswith("diff --git a/src/new.py b/src/new.py\nnew file\n")
    assert diff_against(root, base, {"src/same.py": as_text(b"s = 1\n")}) == []


def test_the_base_side_is_redacted_as_the_kept_side_is(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    write(root / "settings.py", f'KEY = "{FAKE_KEY}"\n')
    git(root, "init", "-q", "-b", "main")
    base = commit(root, "base")
    [diff] = diff_against(root, base, {"settings.py": as_text(b"KEY = None\n")})
    assert "-KEY = " in diff.text and FAKE_KEY not in diff.text


def test_a_base_outside_git_cannot_be_read_and_says_so(tmp_path: Path) -> None:
    with pytest.raises(OSError, match=r"^git cannot read the base 0123456789ab$"):
        diff_against(tmp_path, "0123456789abcdef", {"a.py": kept("a\n")})


def test_a_base_the_repository_does_not_know_is_an_error_not_a_unit_of_new_files(
    tmp_path: Path,
) -> None:
    """Gone after a rebase and ``git gc``: the brief says the base cannot be read."""
    root = tmp_path / "ws"
    write(root / "a.py", "a\n")
    git(root, "init", "-q", "-b", "main")
    commit(root, "base")
    with pytest.raises(OSError, match=r"^git cannot read the base deadbeefdead$"):
        diff_against(root, "deadbeef" * 5, {"a.py": kept("a\n")})


def branchy_repo(tmp_path: Path) -> tuple[Path, str, str]:
    """``main`` at A; ``feature`` forked at A with one commit B on it (checked out)."""
    root = tmp_path / "ws"
    write(root / "app.py", "x = 1\n")
    git(root, "init", "-q", "-b", "main")
    fork = commit(root, "A")
    git(root, "checkout", "-q", "-b", "feature")
    write(root / "app.py", "x = 2\n")
    return root, fork, commit(root, "B")


def test_an_unconfigured_base_is_diffed_from_its_merge_base_with_the_default_branch(
    tmp_path: Path,
) -> None:
    root, fork, head = branchy_repo(tmp_path)
    assert diff_base(root, head, configured=False) == fork


def test_a_configured_base_or_no_base_is_taken_as_it_is(tmp_path: Path) -> None:
    root, _, head = branchy_repo(tmp_path)
    assert diff_base(root, head, configured=True) == head
    assert diff_base(root, None, configured=False) is None


def test_the_remotes_default_branch_wins_over_a_local_main(tmp_path: Path) -> None:
    root, fork, head = branchy_repo(tmp_path)
    git(root, "checkout", "-q", "main")
    write(root / "later.py", "l = 1\n")
    later = commit(root, "C")  # main moved on; origin's default branch is still at A
    git(root, "checkout", "-q", "feature")
    git(root, "update-ref", "refs/remotes/origin/trunk", fork)
    git(root, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/trunk")
    assert diff_base(root, later, configured=False) == fork
    git(root, "symbolic-ref", "--delete", "refs/remotes/origin/HEAD")
    assert diff_base(root, later, configured=False) == later  # main itself: its own base
    assert diff_base(root, head, configured=False) == fork


def test_master_is_the_default_branch_when_there_is_no_main(tmp_path: Path) -> None:
    root, fork, head = branchy_repo(tmp_path)
    git(root, "branch", "-m", "main", "master")
    assert diff_base(root, head, configured=False) == fork


def test_without_a_default_branch_or_a_common_history_the_recorded_base_stays(
    tmp_path: Path,
) -> None:
    root, _, head = branchy_repo(tmp_path)
    git(root, "branch", "-m", "main", "trunk")
    assert diff_base(root, head, configured=False) == head
    git(root, "checkout", "-q", "--orphan", "main")
    write(root / "other.py", "o = 1\n")
    commit(root, "unrelated")
    assert diff_base(root, head, configured=False) == head  # no merge-base with main


def diffs(*sizes: int, prefix: str = "f") -> list[FileDiff]:
    """Diffs of exactly ``size`` bytes, each line 10 bytes long."""
    return [
        FileDiff(f"{prefix}{n}.py", "123456789\n" * (size // 10)) for n, size in enumerate(sizes)
    ]


def test_diffs_that_fit_the_budget_are_shown_whole_with_no_note() -> None:
    [shown] = fit([diffs(30, 20)], 50)
    assert shown == ShownDiff("123456789\n" * 5, 2)
    assert shown.note is None


def test_an_empty_section_is_shown_as_nothing() -> None:
    assert fit([[]], 10) == [ShownDiff("", 0)]


def test_the_budget_is_shared_in_order_and_what_is_left_out_is_named() -> None:
    first, second = fit([diffs(30), diffs(20, 10, prefix="g")], 50)
    assert first == ShownDiff("123456789\n" * 3, 1)
    assert second == ShownDiff("123456789\n" * 2, 2, ("g1.py",), 50)
    assert second.note == "diff truncated at 50 bytes; 1 file(s) omitted: g1.py"


def test_a_diff_larger_than_what_is_left_is_cut_at_a_whole_line() -> None:
    [shown] = fit([diffs(20, 40)], 45)
    assert shown.text == "123456789\n" * 4 + "... (truncated)\n"
    assert (shown.omitted, shown.cap) == ((), 45)
    assert shown.note == "diff truncated at 45 bytes; 0 file(s) omitted"


def test_a_cut_never_splits_a_multibyte_character_or_a_line() -> None:
    [shown] = fit([[FileDiff("u.py", "é\n" * 10)]], 7)  # 3 bytes a line: 2 lines and a byte
    assert shown.text == "é\né\n... (truncated)\n"


def test_a_budget_spent_exactly_omits_everything_after() -> None:
    [shown] = fit([diffs(20, 10, 10)], 20)
    assert (shown.text, shown.omitted) == ("123456789\n" * 2, ("f1.py", "f2.py"))


def test_the_note_names_at_most_fifty_omitted_files_and_counts_the_rest() -> None:
    [shown] = fit([diffs(*[10] * (MAX_NAMED + 4))], 10)
    named = ", ".join(f"f{n}.py" for n in range(1, MAX_NAMED + 1))
    assert shown.note == (
        f"diff truncated at 10 bytes; {MAX_NAMED + 3} file(s) omitted: {named} and 3 more"
    )
