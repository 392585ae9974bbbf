"""One wheel built with ``python -m build`` and installed into a fresh venv outside the repo.

Test workers share it: the first builds under a lock in the session's shared temp folder, the
rest reuse it. The build runs in this checkout's dev venv (``--no-isolation``: ``build`` still
refuses unless the ``[build-system]`` requirements are installed there), sdist first, then the
wheel from the sdist, so MANIFEST.in is what puts the definitions in. The venv is made without
pip; this venv's pip installs the wheel into it, its dependencies resolved from the wheel's
own metadata against this machine's wheelhouse (below), so nothing of the checkout is in it.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock

from aidlc_review.harness.layout import PROJECT_ROOT
from tests.shared_builds import build_once

SHARED = PROJECT_ROOT.parent / "shared"
# What the sdist is built from: the tracked sources, none of the checkout's caches or venv.
SOURCES = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md")
FOLDERS = ("compiler", "stages", "agents", "knowledge", "sensors", "scopes", "tools/data")
IGNORED = shutil.ignore_patterns("__pycache__", "*.egg-info", "_plugin", "*.pyc")
# Per machine, like pip's own cache (the per-test XDG cache would drop it after every test).
WHEELHOUSES = Path.home() / ".cache" / "aidlc-review-tests" / "wheelhouse"


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
    """The test's environment for pip, without ``PYTHONPATH``: a checkout's ``compiler/`` on it
    (its editable install's metadata there) reads to pip as this package already installed."""
    cache = Path.home() / ".cache" / "pip"
    keep = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return {**keep, "PIP_CACHE_DIR": str(cache), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}


def _check(argv: list[str], cwd: Path) -> None:
    done = subprocess.run(argv, cwd=cwd, env=pip_env(), capture_output=True, text=True)
    assert done.returncode == 0, f"{' '.join(argv)} failed:\n{done.stdout}\n{done.stderr}"


def wheelhouse(pyproject: Path) -> Path:
    """This machine's wheels of ``pyproject``'s dependencies and build requirements.

    Downloaded by pip from the package index the first time a set of requirements is seen,
    then kept: the index answers without cache headers, so pip's own cache never keeps
    them and every install would download them all again. A changed requirement is a new
    set. An install with ``--no-index --find-links`` here still resolves the installed
    project's own metadata: a dependency the project does not declare is not installed.
    """
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    wanted = sorted({*project["build-system"]["requires"], *project["project"]["dependencies"]})
    stamp = json.dumps([wanted, sys.version, sysconfig.get_platform()]).encode()
    key = hashlib.sha256(stamp).hexdigest()[:16]
    WHEELHOUSES.mkdir(parents=True, exist_ok=True)
    home = WHEELHOUSES / key
    with FileLock(str(WHEELHOUSES / f"{key}.lock")):
        if not home.is_dir():
            partial = WHEELHOUSES / f"{key}.partial"
            shutil.rmtree(partial, ignore_errors=True)
            download = [sys.executable, "-m", "pip", "download", "-q", "--dest", str(partial)]
            _check([*download, *wanted], WHEELHOUSES)
            partial.rename(home)  # complete or absent, never half
    return home


def _copy_sources(into: Path) -> Path:
    for name in SOURCES:
        shutil.copy2(PROJECT_ROOT / name, into / name)
    for folder in FOLDERS:
        shutil.copytree(PROJECT_ROOT / folder, into / folder, ignore=IGNORED)
    return into


def build_wheel(where: Path) -> Path:
    """``python -m build`` (sdist, then the wheel from the sdist) of a copy of the sources."""
    source = _copy_sources(where / "src")
    build = [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(where / "dist")]
    _check([*build, str(source)], where)
    (wheel,) = (where / "dist").glob("*.whl")
    return wheel


def install_into_fresh_venv(wheel: Path, venv: Path, wheels: Path) -> None:
    """A venv with nothing but ``wheel`` and the dependencies its metadata names."""
    _check([sys.executable, "-m", "venv", "--without-pip", str(venv)], venv.parent)
    pip = [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install"]
    # --no-compile: a module is compiled when first imported (most never are), not all at once
    offline = ["--no-index", "--find-links", str(wheels), "--no-compile"]
    _check([*pip, *offline, str(wheel)], venv.parent)


def installed_wheel(shared: Path) -> Installed:
    """The session's wheel in its own venv (built once; later callers reuse it)."""

    def build(home: Path) -> None:
        (home / "src").mkdir(parents=True)
        wheel = build_wheel(home)
        wheels = wheelhouse(home / "src" / "pyproject.toml")
        install_into_fresh_venv(wheel, home / "venv", wheels)
        (home / "wheel-path").write_text(str(wheel), encoding="utf-8")

    home = build_once(shared / "aidlc-review-wheel", build)
    return Installed(home / "venv", Path((home / "wheel-path").read_text(encoding="utf-8")))
