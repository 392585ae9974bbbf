"""The pre-commit hooks, run by the real ``pre-commit`` from a local clone of this repository.

Each workspace names the clone the way a team's config names this repository
(``repo:`` + ``rev:``); pre-commit installs it once into a hook environment shared by
these tests (the same repo and rev), then runs the hook on the staged files.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from aidlc_review.harness.layout import PROJECT_ROOT
from tests.packaging.wheel import pip_env

UNIT = "u1-stock-ledger"
GIT_ID = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
}


@pytest.fixture(scope="session")
def clone(tmp_path_factory) -> Path:
    where = tmp_path_factory.mktemp("hooks-clone") / "aidlc-code-review"
    subprocess.run(["git", "clone", "-q", str(PROJECT_ROOT), str(where)], check=True)
    return where


@pytest.fixture
def env(tmp_path_factory) -> dict[str, str]:
    shared = tmp_path_factory.getbasetemp().parent / "pre-commit-home"
    return {**pip_env(), **GIT_ID, "PRE_COMMIT_HOME": str(shared)}


def git(cwd: Path, env: dict[str, str], *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def make_reviewed(workspace: Path, env: dict[str, str], extra: dict[str, str]) -> Path:
    """The example workspace as a git repository (plus ``extra`` files), its unit reviewed
    and committed."""
    shutil.copytree(PROJECT_ROOT / "examples" / "inventory-service", workspace)
    for name, text in extra.items():
        (workspace / name).write_text(text)
    git(workspace, env, "init", "-q")
    git(workspace, env, "add", "-A")
    git(workspace, env, "commit", "-qm", "generated")
    assert main(["review", "run", "--workspace", str(workspace), "--unit", UNIT]) in (0, 1)
    git(workspace, env, "add", "-A")
    git(workspace, env, "commit", "-qm", "reviewed")
    return workspace


def hooks_config(clone: Path) -> str:
    """The ``.pre-commit-config.yaml`` a team writes, naming the clone at its HEAD."""
    rev = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=clone, capture_output=True, text=True, check=True
    ).stdout.strip()
    return (
        f"repos:\n  - repo: {clone}\n    rev: {rev}\n    hooks:\n"
        "      - id: aidlc-review-verify\n      - id: aidlc-review-sensors\n"
    )


@pytest.fixture
def reviewed(tmp_path, clone, env) -> Path:
    config = {".pre-commit-config.yaml": hooks_config(clone)}
    return make_reviewed(tmp_path / "inventory-service", env, config)


def run_hook(hook: str, workspace: Path, env: dict[str, str]):
    """``pre-commit run HOOK`` on the staged files, as ``git commit`` would run it."""
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", hook],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


def test_verify_passes_a_commit_that_leaves_the_reviewed_source_alone(clone, reviewed, env):
    (reviewed / "aidlc-docs" / "notes.md").write_text("# Notes\n")
    git(reviewed, env, "add", "aidlc-docs/notes.md")
    done = run_hook("aidlc-review-verify", reviewed, env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "aidlc-review verify (stale code reviews)" in done.stdout
    assert "Passed" in done.stdout


def test_verify_blocks_a_commit_of_a_stale_unit_naming_the_path(clone, reviewed, env):
    ledger = reviewed / "src" / "inventory" / "ledger.py"
    ledger.write_text(ledger.read_text() + "\nLIMIT = 10\n")
    git(reviewed, env, "add", "src/inventory/ledger.py")
    done = run_hook("aidlc-review-verify", reviewed, env)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"{UNIT}: the code review is stale; re-run `aidlc-review review run --unit {UNIT}`" in (
        done.stdout
    )
    assert "  src/inventory/ledger.py: " in done.stdout


def test_sensors_block_a_secret_in_a_staged_claimed_file(clone, reviewed, env):
    pricing = reviewed / "src" / "inventory" / "pricing.py"
    pricing.write_text(pricing.read_text() + '\nAWS_KEY = "AKIAZ3MSJV5WZYXQW7PD"\n')
    git(reviewed, env, "add", "src/inventory/pricing.py")
    done = run_hook("aidlc-review-sensors", reviewed, env)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"{UNIT}: secret-scan: failed" in done.stdout
    assert "src/inventory/pricing.py:" in done.stdout
    assert "AKIAZ3MSJV5WZYXQW7PD" not in done.stdout + done.stderr


def test_sensors_pass_a_clean_staged_claimed_file(clone, reviewed, env):
    pricing = reviewed / "src" / "inventory" / "pricing.py"
    pricing.write_text(pricing.read_text() + "\n")
    git(reviewed, env, "add", "src/inventory/pricing.py")
    done = run_hook("aidlc-review-sensors", reviewed, env)
    assert done.returncode == 0, done.stdout + done.stderr


def test_an_installed_hook_refuses_the_commit_itself(clone, tmp_path, env):
    """The same hooks as a team adds them (``repo:`` + ``rev:``), run by ``git commit``."""
    config = {".pre-commit-config.yaml": hooks_config(clone)}
    workspace = make_reviewed(tmp_path / "ws", env, config)
    install = [sys.executable, "-m", "pre_commit", "install"]
    subprocess.run(install, cwd=workspace, env=env, check=True, capture_output=True)
    (workspace / "aidlc-docs" / "notes.md").write_text("# Notes\n")
    git(workspace, env, "add", "aidlc-docs/notes.md")
    commit = ["git", "commit", "-qm", "notes"]
    fresh = subprocess.run(commit, cwd=workspace, env=env, capture_output=True, text=True)
    assert fresh.returncode == 0, fresh.stdout + fresh.stderr
    ledger = workspace / "src" / "inventory" / "ledger.py"
    ledger.write_text(ledger.read_text() + "\nLIMIT = 10\n")
    git(workspace, env, "add", "src/inventory/ledger.py")
    stale = subprocess.run(
        ["git", "commit", "-qm", "stale"], cwd=workspace, env=env, capture_output=True, text=True
    )
    assert stale.returncode == 1, stale.stdout + stale.stderr
    assert "  src/inventory/ledger.py: " in stale.stdout + stale.stderr
    head = subprocess.run(
        ["git", "log", "--format=%s", "-1"], cwd=workspace, capture_output=True, text=True
    ).stdout
    assert head == "notes\n"  # the stale commit was not made
