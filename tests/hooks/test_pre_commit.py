"""The pre-commit hooks, run by the real ``pre-commit`` from a local clone of this repository.

Each workspace names the clone the way a team's config names this repository
(``repo:`` + ``rev:``); pre-commit installs it once into a hook environment shared by
these tests (the same repo and rev, one clone for every worker), then runs the hook on the
staged files. Its pip installs from this machine's wheelhouse of the project's requirements
(``PIP_NO_INDEX`` + ``PIP_FIND_LINKS``, as behind a mirror), still resolving the clone's
own metadata.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from aidlc_review.harness.layout import PROJECT_ROOT
from tests.packaging.wheel import pip_env, wheelhouse
from tests.shared_builds import build_once, session_root, state_home

UNIT = "u1-stock-ledger"
NAME = "aidlc-code-review"  # the clone's folder, as a team's checkout of this repository
GIT_ID = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
}


@pytest.fixture(scope="session")
def clone(tmp_path_factory) -> Path:
    """One clone for the whole session: every worker names the same repo, so pre-commit
    installs one hook environment, not one per worker."""

    def clone_into(folder: Path) -> None:
        folder.mkdir()
        subprocess.run(["git", "clone", "-q", str(PROJECT_ROOT), str(folder / NAME)], check=True)

    return build_once(session_root(tmp_path_factory) / "hooks-clone", clone_into) / NAME


@pytest.fixture(scope="session")
def hooks_env(tmp_path_factory, clone) -> dict[str, str]:
    """What pre-commit and its pip see beyond the test's own environment."""
    return {
        **GIT_ID,
        "PRE_COMMIT_HOME": str(session_root(tmp_path_factory) / "pre-commit-home"),
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(wheelhouse(clone / "pyproject.toml")),
        # virtualenv's background refresh of its seed wheels (a fresh data dir asks for it)
        "VIRTUALENV_NO_PERIODIC_UPDATE": "1",
        # pip's --no-compile: modules compile when first imported, not every one at install
        "PIP_COMPILE": "0",
    }


@pytest.fixture
def env(hooks_env) -> dict[str, str]:
    return {**pip_env(), **hooks_env}  # this test's XDG dirs (tests/conftest.py) included


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


def install_hooks(where: Path, config: str, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """``pre-commit install-hooks`` for ``config``, started in the background."""
    where.mkdir()
    (where / ".pre-commit-config.yaml").write_text(config)
    git(where, env, "init", "-q")
    argv = [sys.executable, "-m", "pre_commit", "install-hooks"]
    with (where / "install-hooks.log").open("wb") as log:
        return subprocess.Popen(argv, cwd=where, env=env, stdout=log, stderr=subprocess.STDOUT)


@dataclass(frozen=True)
class Reviewed:
    workspace: Path
    state: Path  # the review state dir that sealed it (its key, the kept source)


@pytest.fixture(scope="session")
def reviewed_once(tmp_path_factory, clone, hooks_env) -> Reviewed:
    """The workspace reviewed once for every worker, the hook environment installed
    meanwhile (the first worker does both under a lock; the rest reuse them)."""
    root = build_once(
        session_root(tmp_path_factory) / "hooks-reviewed",
        lambda root: review_while_installing(root, clone, hooks_env),
    )
    return Reviewed(root / "inventory-service", state_home(root))


def review_while_installing(root: Path, clone: Path, hooks_env: dict[str, str]) -> None:
    """With the build's own cache and state homes (``build_once`` set them)."""
    root.mkdir()
    env = {**pip_env(), **hooks_env}
    config = hooks_config(clone)
    installing = install_hooks(root / "install-hooks", config, env)
    try:
        make_reviewed(root / "inventory-service", env, {".pre-commit-config.yaml": config})
    finally:
        installed = installing.wait(timeout=900)
    log = root / "install-hooks" / "install-hooks.log"
    assert installed == 0, log.read_text(errors="replace")


@pytest.fixture
def reviewed(tmp_path, reviewed_once) -> Path:
    """A copy of the reviewed workspace, and of the state dir whose key sealed its review
    into this test's own: the workspace commits its seals, which only that key opens, so
    the hooks see a review this machine made, as they did when each test reviewed it."""
    workspace = tmp_path / "inventory-service"
    shutil.copytree(reviewed_once.workspace, workspace, symlinks=True)
    shutil.copytree(reviewed_once.state, os.environ["XDG_STATE_HOME"], dirs_exist_ok=True)
    return workspace


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


def test_an_installed_hook_refuses_the_commit_itself(reviewed, env):
    """The same hooks as a team adds them (``repo:`` + ``rev:``), run by ``git commit``."""
    workspace = reviewed
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
