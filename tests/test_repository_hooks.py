"""This repository's own pre-commit configuration: valid, local (nothing fetched), and each
hook's program is one `make setup` installs."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / ".pre-commit-config.yaml"


def test_the_config_is_valid_and_every_hook_is_local() -> None:
    pre_commit = shutil.which("pre-commit", path=str(Path(sys.executable).parent))
    assert pre_commit is not None, "pre-commit is a dev dependency"
    done = subprocess.run([pre_commit, "validate-config", str(CONFIG)], capture_output=True)
    assert done.returncode == 0, done.stderr
    repos = yaml.safe_load(CONFIG.read_text())["repos"]
    assert [repo["repo"] for repo in repos] == ["local"]


def test_every_hook_runs_a_program_of_the_projects_venv() -> None:
    hooks = yaml.safe_load(CONFIG.read_text())["repos"][0]["hooks"]
    programs = {hook["entry"].split()[0] for hook in hooks}
    assert programs == {
        ".venv/bin/ruff",
        ".venv/bin/mypy",
        ".venv/bin/lint-imports",
        ".venv/bin/aidlc-review",
    }
    assert {hook["id"] for hook in hooks} >= {"ruff-check", "mypy", "aidlc-review-verify"}
