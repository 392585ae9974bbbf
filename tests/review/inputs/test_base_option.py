"""``review run --base REF``: the unit's base, from its first pass on."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from tests.review.workspace import CLEAN, findings_doc, git, make_workspace, review_args, write

COMMITTER = ("-c", "user.name=t", "-c", "user.email=t@example.invalid")


def head(ws: Path) -> str:
    return subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=ws, capture_output=True, text=True, check=True
    ).stdout.strip()


def unclaimed(ws: Path) -> list[str]:
    return [
        f["path"]
        for f in findings_doc(ws)["passes"][-1]["findings"]
        if f["rule"] == "unclaimed-change"
    ]


@pytest.fixture
def committed_work(tmp_path: Path) -> tuple[Path, str]:
    """A unit whose work, an unclaimed helper script included, is already committed."""
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": CLEAN})
    base = head(ws)
    write(ws / "tools/sync.py", "print('synced')\n")
    git(ws, "add", "-A")
    git(ws, *COMMITTER, "commit", "-qm", "code generation")
    return ws, base


def test_without_a_base_the_last_commit_is_the_base(committed_work) -> None:
    ws, _ = committed_work
    assert main(review_args(ws)) == 0
    assert unclaimed(ws) == []


def test_with_base_committed_unclaimed_work_since_it_blocks(committed_work) -> None:
    ws, base = committed_work
    assert main(review_args(ws, "--base", base)) == 1
    assert unclaimed(ws) == ["tools/sync.py"]


def test_a_base_git_does_not_know_is_exit_2_and_writes_nothing(committed_work, capsys) -> None:
    ws, _ = committed_work
    assert main(review_args(ws, "--base", "no-such-branch")) == 2
    assert "base-revision 'no-such-branch': not a commit in" in capsys.readouterr().err
    assert not (ws / "aidlc-docs/.aidlc-engine").exists()


def test_a_base_that_looks_like_an_option_is_a_usage_error(committed_work, capsys) -> None:
    ws, _ = committed_work
    assert main(review_args(ws, "--base=--output=/tmp/x")) == 2
    assert "not a revision" in capsys.readouterr().err


def test_a_host_driven_start_takes_the_base_too(committed_work, capsys) -> None:
    ws, base = committed_work
    start = ["review", "start", "--workspace", str(ws), "--unit", "u1-orders", "--json"]
    assert main([*start, "--base", base]) == 0
    brief = Path(json.loads(capsys.readouterr().out)["brief"]).read_text()
    assert f"### Against the base {base[:12]} (claimed paths only)" in brief
