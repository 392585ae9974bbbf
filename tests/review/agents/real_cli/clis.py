"""The real agent CLIs at pinned versions, installed from the npm registry on first use into
the user's cache (``~/.cache/aidlc-review-tests/agent-clis/<package>@<version>``) and reused
by every later run; and the environment that points each at the fake model server.

A test skips only when ``npm`` is not on PATH; an ``npm install`` that fails or times out,
or a CLI that installs but does not report its pinned version, is a failure.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

# name -> (npm package, pinned version)
PINNED = {
    "claude": ("@anthropic-ai/claude-code", "2.1.332"),
    "codex": ("@openai/codex", "0.171.0"),
}
# fixed at import, before the suite's fixtures give every test a cache dir of its own
CACHE = (
    Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    / "aidlc-review-tests"
    / "agent-clis"
)
INSTALL_SECONDS = 600
DUMMY_KEY = "sk-test-dummy-key-for-the-fake-model"
# Claude Code must not reach anything but the fake server (telemetry, updates, feature flags)
QUIET_CLAUDE = {
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_ERROR_REPORTING": "1",
}


def folder(name: str) -> Path:
    package, version = PINNED[name]
    return CACHE / f"{package.lstrip('@').replace('/', '+')}@{version}"


def bin_dir(name: str) -> Path:
    """The folder holding the CLI's executable, installing it first if need be."""
    found = folder(name) / "node_modules" / ".bin"
    if not (found / name).is_file():
        _install(name)
    _check_version(found / name, PINNED[name][1])
    return found


def _install(name: str) -> None:
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not on PATH: the real agent CLIs are installed from the npm registry")
    package, version = PINNED[name]
    CACHE.mkdir(parents=True, exist_ok=True)
    with _locked(CACHE / ".install.lock"):
        if (folder(name) / "node_modules" / ".bin" / name).is_file():
            return  # another worker installed it meanwhile
        staging = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=CACHE))
        argv = [npm, "install", "--prefix", str(staging), "--no-audit", "--no-fund", "--no-save"]
        try:
            done = subprocess.run(
                [*argv, f"{package}@{version}"],
                capture_output=True,
                text=True,
                timeout=INSTALL_SECONDS,
                check=False,
            )
        except subprocess.TimeoutExpired:
            shutil.rmtree(staging, ignore_errors=True)
            pytest.fail(f"npm could not install {package}@{version} in {INSTALL_SECONDS}s")
        if done.returncode != 0:
            shutil.rmtree(staging, ignore_errors=True)
            tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
            pytest.fail(f"npm could not install {package}@{version}: {' / '.join(tail)}")
        staging.rename(folder(name))


def _check_version(exe: Path, version: str) -> None:
    with tempfile.TemporaryDirectory() as home:
        said = subprocess.run(
            [str(exe), "--version"],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "HOME": home},
            check=False,
        )
    assert version in said.stdout, f"{exe} --version said {said.stdout!r} {said.stderr!r}"


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def codex_config(url: str) -> str:
    """``~/.codex/config.toml`` pointing Codex at the fake server (Responses API)."""
    return (
        'model_provider = "fake"\nmodel = "gpt-fake"\n\n'
        "[model_providers.fake]\n"
        'name = "fake model"\n'
        f'base_url = "{url}/v1"\n'
        'wire_api = "responses"\n'
        'env_key = "FAKE_MODEL_API_KEY"\n'
        "request_max_retries = 0\n"
        "stream_max_retries = 1\n"
    )
