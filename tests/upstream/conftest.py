"""Fixtures: a fresh upstream project, the plugin installed in it by ``aidlc-review install``."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from tests.upstream.engine import UpstreamProject, bun_dir

from aidlc_review.cli.main import main

TOOLS = Path(sys.executable).parent  # aidlc-review, ruff, mypy of this environment


def _put_tools_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", f"{bun_dir()}{os.pathsep}{TOOLS}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.delenv("AIDLC_BUN", raising=False)


@pytest.fixture
def on_path(monkeypatch):
    """bun (for upstream's generators) and this environment's tools on PATH."""
    _put_tools_on_path(monkeypatch)


@pytest.fixture(scope="session")
def installed_once(tmp_path_factory) -> UpstreamProject:
    """One fresh project with the plugin installed, per test process: tests get copies."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        _put_tools_on_path(monkeypatch)
        project = UpstreamProject.fresh(tmp_path_factory.mktemp("installed") / "project")
        assert main(["install", "--harness", str(project.harness)]) == 0
    return project


@pytest.fixture
def project(tmp_path, on_path) -> UpstreamProject:
    return UpstreamProject.fresh(tmp_path / "project")


@pytest.fixture
def installed(installed_once, tmp_path, on_path) -> UpstreamProject:
    """A fresh project with the plugin installed by ``aidlc-review install`` (a copy of
    one installed per test process: the install itself is what ``installed_once`` ran)."""
    return installed_once.copy_to(tmp_path / "project")
