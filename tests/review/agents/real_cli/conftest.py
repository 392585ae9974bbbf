"""Fixtures: a real agent CLI on PATH, a scratch HOME, and the fake model it talks to."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.review.agents.real_cli import clis
from tests.review.agents.real_cli.fake_model import FakeModel, Serving, Step


@dataclass
class World:
    """One test's CLI: its name, HOME, and the fake model it is pointed at."""

    cli: str
    home: Path
    model: FakeModel
    url: str

    def offered_tools(self) -> list[set[str]]:
        """The tool names each request to the model offered it."""
        return [
            {str(t.get("name") or t.get("type")) for t in s.body.get("tools", [])}
            for s in self.model.seen
            if s.body.get("tools") is not None
        ]

    def requests_text(self) -> str:
        return "\n".join(s.text for s in self.model.seen)


@pytest.fixture
def tmp_path(tmp_path: Path) -> Iterator[Path]:
    """The test's folder on a real disk: Codex's read-only sandbox mounts a fresh ``/dev``,
    so a workspace under ``/dev/shm`` (where ``make test`` keeps its temp files) would be
    invisible to the commands the model runs."""
    if not tmp_path.resolve().is_relative_to("/dev"):
        yield tmp_path
        return
    real = Path(tempfile.mkdtemp(prefix="real-cli-", dir="/var/tmp"))
    try:
        yield real
    finally:
        shutil.rmtree(real, ignore_errors=True)


@pytest.fixture
def real_cli(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[[str, list[Step]], World]]:
    """``real_cli(name, turns)``: the pinned CLI first on PATH, HOME a scratch folder, and a
    fake model on loopback that plays ``turns``; stopped when the test ends."""
    started: list[Serving] = []

    def start(cli: str, turns: list[Step]) -> World:
        found = clis.bin_dir(cli)
        model = FakeModel(list(turns))
        serving = Serving(model, lifetime=300).__enter__()
        started.append(serving)
        home = tmp_path / f"home-{cli}"
        home.mkdir(exist_ok=True)
        monkeypatch.setenv("PATH", f"{found}{os.pathsep}{os.environ['PATH']}")
        monkeypatch.setenv("HOME", str(home))
        for name in ("ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY", "CODEX_HOME", "CLAUDE_CONFIG_DIR"):
            monkeypatch.delenv(name, raising=False)
        if cli == "claude":
            monkeypatch.setenv("ANTHROPIC_BASE_URL", serving.url)
            monkeypatch.setenv("ANTHROPIC_API_KEY", clis.DUMMY_KEY)
            for name, value in clis.QUIET_CLAUDE.items():
                monkeypatch.setenv(name, value)
        else:
            (home / ".codex").mkdir(exist_ok=True)
            (home / ".codex" / "config.toml").write_text(clis.codex_config(serving.url))
            monkeypatch.setenv("FAKE_MODEL_API_KEY", clis.DUMMY_KEY)
        return World(cli, home, model, serving.url)

    yield start
    for serving in started:
        serving.stop()
