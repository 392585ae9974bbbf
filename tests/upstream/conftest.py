"""Fixtures: a fresh upstream project, the plugin installed in it by ``aidlc-review install``."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from tests.upstream.engine import UpstreamProject, bun_dir

from aidlc_review.cli.main import main

TOOLS = Path(sys.executable).parent  # aidlc-review, ruff, mypy of this environment


@pytest.fixture
def on_path(monkeypatch):
    """bun (for upstream's generators) and this environment's tools on PATH."""
    monkeypatch.setenv("PATH", f"{bun_dir()}{os.pathsep}{TOOLS}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.delenv("AIDLC_BUN", raising=False)


@pytest.fixture
def project(tmp_path, on_path) -> UpstreamProject:
    return UpstreamProject.fresh(tmp_path / "project")


@pytest.fixture
def installed(project) -> UpstreamProject:
    assert main(["install", "--harness", str(project.harness)]) == 0
    return project
