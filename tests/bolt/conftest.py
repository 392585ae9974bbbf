"""Real git repositories and scripted command agents for the Bolt pipeline tests."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

AGENT = Path(__file__).with_name("agent.py")
IDENTITY = {
    "GIT_AUTHOR_NAME": "Bolt Test",
    "GIT_AUTHOR_EMAIL": "bolt@test.invalid",
    "GIT_COMMITTER_NAME": "Bolt Test",
    "GIT_COMMITTER_EMAIL": "bolt@test.invalid",
}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    ).stdout


@dataclass
class Scene:
    """A repository on branch main, a units file, and the scripted agent's config and log."""

    repo: Path
    tmp: Path

    @property
    def config(self) -> Path:
        return self.tmp / "agent-config.json"

    @property
    def log(self) -> Path:
        return self.tmp / "agent-log.jsonl"

    def agents(self, **units: dict) -> str:
        self.config.write_text(
            json.dumps(
                {"log": str(self.log), "repo": str(self.repo), "target": "main", "units": units}
            )
        )
        return f"command:{sys.executable} {AGENT} {self.config}"

    def run_argv(self, units: str, agent: str, *extra: str) -> list[str]:
        """``bolt run`` on this repository with ``units`` (YAML text), one scripted agent
        as developer and reviewer, and any extra options."""
        workspace = ["--workspace", str(self.repo), "--units", str(self.units(units))]
        return ["bolt", "run", *workspace, "--developer", agent, "--reviewer", agent, *extra]

    def units(self, text: str) -> Path:
        path = self.tmp / "units.yaml"
        path.write_text(text)
        return path

    def entries(self, **match: str) -> list[dict]:
        if not self.log.exists():
            return []
        rows = [json.loads(line) for line in self.log.read_text().splitlines()]
        return [r for r in rows if all(r.get(k) == v for k, v in match.items())]

    def state(self) -> dict:
        root = self.repo / ".git" / "aidlc-bolt"
        return json.loads(
            (root / (root / "current").read_text().strip() / "state.json").read_text()
        )

    def record_state(self, data: dict) -> None:
        """Write ``data`` as the run's state the way the tool itself does (sealed), to play
        a run that died at a chosen point. Any other writer's state is refused."""
        from aidlc_review.bolt.state import SEAL_KEY, RunState, sealed_json

        data = {k: v for k, v in data.items() if k != SEAL_KEY}
        state = RunState.model_validate_json(json.dumps(data))
        root = self.repo / ".git" / "aidlc-bolt"
        (root / state.id8 / "state.json").write_text(sealed_json(state))

    def squash_subjects(self) -> list[str]:
        return [
            s
            for s in git(self.repo, "log", "--format=%s", "main").splitlines()
            if s.startswith("bolt(")
        ]


@pytest.fixture
def scene(tmp_path, monkeypatch) -> Scene:
    for key, value in IDENTITY.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "README.md").write_text("# demo\n")
    (repo / ".gitignore").write_text("__pycache__/\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "initial")
    return Scene(repo, tmp_path)
