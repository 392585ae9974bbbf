"""The one door to git: its safety flags hold whatever the repository configures."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from aidlc_review.gitdoor import git, git_text

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs the git program")


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    for argv in (["init", "-q"], ["config", "user.email", "dev@example.com"]):
        subprocess.run(["git", "-C", str(repo), *argv], check=True, capture_output=True)
    return repo


def test_a_file_named_like_an_option_is_a_path_after_the_double_dash(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / "--version").write_text("x\n")
    subprocess.run(["git", "-C", str(repo), "add", "--", "--version"], check=True)
    listed = git(repo, "ls-files", "-z", paths=["--version"])
    assert listed == b"--version\0"


def test_an_fsmonitor_program_the_clone_configures_never_runs(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    marker = tmp_path / "fsmonitor-ran"
    hook = tmp_path / "fsmonitor.sh"
    hook.write_text(f"#!/bin/sh\ntouch '{marker}'\nexit 1\n")
    hook.chmod(0o755)
    subprocess.run(["git", "-C", str(repo), "config", "core.fsmonitor", str(hook)], check=True)
    (repo / "a.py").write_text("x = 1\n")
    subprocess.run(["git", "-C", str(repo), "add", "a.py"], check=True)
    marker.unlink(missing_ok=True)  # the plain `git add` above may have run it
    assert git(repo, "status", "--porcelain") is not None
    assert not marker.exists()


def test_a_personal_excludes_file_does_not_hide_an_untracked_file(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    excludes = tmp_path / "excludes"
    excludes.write_text("hidden.py\n")
    subprocess.run(
        ["git", "-C", str(repo), "config", "core.excludesFile", str(excludes)], check=True
    )
    (repo / "hidden.py").write_text("x = 1\n")
    listed = git(repo, "ls-files", "-z", "--others", "--exclude-standard")
    assert listed == b"hidden.py\0"


def test_a_name_outside_ascii_comes_back_as_itself_not_escaped(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / "café.py").write_text("x = 1\n")
    listed = git_text(repo, "status", "--porcelain")
    assert listed == "?? café.py"


def test_a_failing_command_answers_none(tmp_path: Path) -> None:
    assert git(tmp_path, "rev-parse", "--verify", "-q", "HEAD") is None
    assert git_text(_repo(tmp_path), "rev-parse", "--verify", "-q", "no-such-ref") is None


def test_config_the_user_set_is_still_read(tmp_path: Path) -> None:
    assert git_text(_repo(tmp_path), "config", "user.email") == "dev@example.com"
