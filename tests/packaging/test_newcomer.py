"""A newcomer's first five minutes: the wheel in a venv of its own (as pipx or uv install it),
a real package from PyPI with its own config and its own project venv, ``aidlc-review init``,
then ``review run`` with no flags. It reviews (READY or findings that say what to fix), the
package's tests run where its code runs, and nothing asks for a flag."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tarfile
from pathlib import Path

from tests.judgment import pypi
from tests.packaging.wheel import Installed

PACKAGE = pypi.PACKAGES["humanize"]


def _tree(where: Path) -> Path:
    """The sdist as a newcomer has it: unpacked, committed, nothing of ours in it."""
    with tarfile.open(pypi.sdist(PACKAGE)) as archive:
        archive.extractall(where, filter="data")
    root = where / f"{PACKAGE.name}-{PACKAGE.version}"
    for rel in PACKAGE.drop:
        shutil.rmtree(root / rel, ignore_errors=True)
    pypi.git(root, "init", "-q", "-b", "main")
    pypi.commit(root, "the project as it is")
    return root


def _shell(installed: Installed, root: Path, venv: Path) -> dict[str, str]:
    """The newcomer's shell: the project venv activated, the tool's own venv after it."""
    env = installed.env()
    env["PATH"] = os.pathsep.join([str(venv / "bin"), str(installed.bin), "/usr/bin", "/bin"])
    env["PYTHONPATH"] = str(root / "src")  # what `pip install -e .` in the venv would give
    return env


def _run(argv: list[str], root: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, timeout=900)


def test_init_and_a_flagless_review_on_a_real_package(wheel_venv: Installed, tmp_path):
    root = _tree(tmp_path)
    env = _shell(wheel_venv, root, pypi.project_venv())

    init = _run(["aidlc-review", "init", "src/", "tests/"], root, env)
    assert init.returncode == 0, init.stderr
    assert "test command: python -m pytest -q\n" in init.stdout
    assert "next: aidlc-review review run\n" in init.stdout
    pypi.commit(root, "claim the source for review")
    done = _run(["aidlc-review", "review", "run"], root, env)

    assert done.returncode in (0, 1), done.stderr
    assert "review: coverage: running python -m pytest -q under coverage on " in done.stderr
    record = root / "aidlc-docs/construction/code-review"
    doc = json.loads((record / "code-review-findings.json").read_text())
    checks = {c["name"]: c["status"] for c in doc["passes"][-1]["checks"]}
    assert checks["coverage"] in ("passed", "failed"), checks  # measured, not "could not verify"
    assert checks["linter"] in ("passed", "failed") and checks["security"] in ("passed", "failed")
    if done.returncode == 1:  # each blocking finding says what to do about it
        blocking = [f for f in doc["passes"][-1]["findings"] if f["severity"] != "minor"]
        assert blocking and all(f["recommendation"] for f in blocking)
    assert (record / "code-review.md").read_text().startswith("# Code review")
