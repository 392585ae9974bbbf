"""Small workspaces and one-line sensor runs for the sensor specs."""

from __future__ import annotations

import os
import pickle
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from aidlc_review.harness.definitions.sensor import SensorManifest
from aidlc_review.sensors import CheckResult, run_sensors
from aidlc_review.sensors.manifests import load_sensor_manifests
from tests.shared_builds import build_once, session_root

RUFF_CONFIG = "[tool.ruff]\nline-length = 100\n\n[tool.ruff.lint]\nselect = ['E', 'F']\n"
# mypy runs only where the workspace configures it
MYPY_CONFIG = "[mypy]\n"
UNFORMATTED = "x=1\n"
FORMATTED = "x = 1\n"


def project_manifest(sensor: str, **update: Any) -> SensorManifest:
    """This project's ``sensors/aidlc-<id>.md``, optionally with (runner) fields replaced."""
    found = {m.id: m for m in load_sensor_manifests(None)}[sensor]
    runner_update = update.pop("runner", None)
    if runner_update:
        assert found.runner is not None
        update["runner"] = found.runner.model_copy(update=runner_update)
    return found.model_copy(update=update)


def make_workspace(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def commit_all(root: Path, message: str = "the base") -> Path:
    """Make ``root`` a git repository (if it is not one) and commit everything in it: what
    stands at the base is what the sensors honour (suppressions, baselines)."""
    import subprocess

    def git(*args: str) -> None:
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
            cwd=root,
            check=True,
            capture_output=True,
        )

    if not (root / ".git").exists():
        git("init", "-q", "-b", "main")
    git("add", "-A")
    git("commit", "-q", "--allow-empty", "-m", message)
    return root


def built_once(
    tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], Any]
) -> tuple[Path, Any]:
    """``build(folder)`` run once per test session, shared by every xdist worker: the folder
    it filled and what it returned. Readers only read; a test that changes anything copies
    the folder first (``shutil.copytree``)."""
    folder = session_root(tmp_path_factory) / name
    returned = folder.with_name(f"{name}.pickle")

    def fill(where: Path) -> None:
        where.mkdir()
        returned.write_bytes(pickle.dumps(build(where)))

    build_once(folder, fill)
    return folder, pickle.loads(returned.read_bytes())


def fake_tool(folder: Path, name: str, script: str) -> Path:
    """An executable ``name`` in ``folder`` running a Python ``script`` (a hanging tool...)."""
    import sys

    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(f"#!{sys.executable}\n{script}")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def run_one(
    workspace: Path,
    files: list[str],
    manifest: SensorManifest | str,
    settings: dict[str, Any] | None = None,
    cache_dir: Path | None = None,
    progress: Callable[[str], None] | None = None,
) -> CheckResult:
    chosen = project_manifest(manifest) if isinstance(manifest, str) else manifest
    [result] = run_sensors(
        workspace, files, [chosen], settings=settings, cache_dir=cache_dir, progress=progress
    )
    return result


def located(result: CheckResult) -> list[tuple[str, int | None, str | None, str]]:
    return [(f.path, f.line, f.rule, f.severity) for f in result.findings]


def cache_bytes() -> bytes:
    """Every byte of this test's cache home, the machine's tool seeds (a link) included."""
    home = Path(os.environ["XDG_CACHE_HOME"])
    return tree_bytes(home, home / "aidlc-review" / "sensors" / "seeds")


def tree_bytes(*roots: Path) -> bytes:
    """Every byte of every file under ``roots``: a secret must not be anywhere in it."""
    chunks = []
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.is_file() and not path.is_symlink():
                chunks.append(path.read_bytes())
    return b"\n".join(chunks)
