"""Fixtures: a fresh upstream project, the plugin installed in it by ``aidlc-review install``."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.shared_builds import session_root
from tests.upstream.engine import UpstreamProject, build_once, put_tools_on_path

from aidlc_review.cli.main import main


@pytest.fixture
def on_path(monkeypatch):
    """bun (for upstream's generators) and this environment's tools on PATH."""
    put_tools_on_path(monkeypatch)


@pytest.fixture(scope="session")
def shared_tmp(tmp_path_factory) -> Path:
    """A folder every xdist worker of this test run shares (this run's own without xdist)."""
    return session_root(tmp_path_factory)


@pytest.fixture(scope="session")
def installed_once(shared_tmp) -> UpstreamProject:
    """One fresh project with the plugin installed, per test run: tests get copies."""

    def install(where: Path) -> None:
        project = UpstreamProject.fresh(where)
        assert main(["install", "--harness", str(project.harness)]) == 0

    return UpstreamProject(build_once(shared_tmp / "upstream-installed", install))


@pytest.fixture
def project(tmp_path, on_path) -> UpstreamProject:
    return UpstreamProject.fresh(tmp_path / "project")


@pytest.fixture
def installed(installed_once, tmp_path, on_path) -> UpstreamProject:
    """A fresh project with the plugin installed by ``aidlc-review install`` (a copy of
    one installed per test run: the install itself is what ``installed_once`` ran)."""
    return installed_once.copy_to(tmp_path / "project")
