"""One wheel built with ``python -m build`` and installed into a fresh venv outside the repo.

Test workers share it: the first builds under a lock in the session's shared temp folder, the
rest reuse it. pip's own cache (not the per-test XDG cache) keeps the install off the network
after the first run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock

from aidlc_review.harness.layout import PROJECT_ROOT

SHARED = PROJECT_ROOT.parent / "shared"
# What the sdist is built from: the tracked sources, none of the checkout's caches or venv.
SOURCES = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md")
FOLDERS = ("compiler", "stages", "agents", "knowledge", "sensors", "scopes", "tools/data")
IGNORED = shutil.ignore_patterns("__pycache__", "*.egg-info", "_plugin", "*.pyc")


@dataclass(frozen=True)
class Installed:
    venv: Path
    wheel: Path

    @property
    def bin(self) -> Path:
        return self.venv / "bin"

    def env(self) -> dict[str, str]:
        """Only the fresh venv and the system on PATH: nothing of the checkout's .venv."""
        keep = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL"))}
        return {**keep, "PATH": f"{self.bin}{os.pathsep}/usr/bin{os.pathsep}/bin"}

    def run(self, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.bin / "aidlc-review"), *args],
            cwd=cwd,
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=600,
        )


def pip_env() -> dict[str, str]:
    cache = Path.home() / ".cache" / "pip"
    return {**os.environ, "PIP_CACHE_DIR": str(cache), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}


def _check(argv: list[str], cwd: Path) -> None:
    done = subprocess.run(argv, cwd=cwd, env=pip_env(), capture_output=True, text=True)
    assert done.returncode == 0, f"{' '.join(argv)} failed:\n{done.stdout}\n{done.stderr}"


def _copy_sources(into: Path) -> Path:
    for name in SOURCES:
        shutil.copy2(PROJECT_ROOT / name, into / name)
    for folder in FOLDERS:
        shutil.copytree(PROJECT_ROOT / folder, into / folder, ignore=IGNORED)
    return into


def build_wheel(where: Path) -> Path:
    """``python -m build`` (sdist, then the wheel from the sdist) of a copy of the sources."""
    source = _copy_sources(where / "src")
    _check([sys.executable, "-m", "build", "--outdir", str(where / "dist"), str(source)], where)
    (wheel,) = (where / "dist").glob("*.whl")
    return wheel


def installed_wheel(shared: Path) -> Installed:
    """The session's wheel in its own venv (built once; later callers reuse it)."""
    home = shared / "aidlc-review-wheel"
    with FileLock(str(shared / "aidlc-review-wheel.lock")):
        marker = home / "ready"
        if not marker.is_file():
            shutil.rmtree(home, ignore_errors=True)
            (home / "src").mkdir(parents=True)
            wheel = build_wheel(home)
            _check([sys.executable, "-m", "venv", str(home / "venv")], home)
            _check([str(home / "venv/bin/python"), "-m", "pip", "install", str(wheel)], home)
            marker.write_text(str(wheel), encoding="utf-8")
    return Installed(home / "venv", Path(marker.read_text(encoding="utf-8")))
