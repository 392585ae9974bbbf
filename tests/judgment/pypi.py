"""Real packages from PyPI, unpacked as a reviewed unit in a git workspace of their own.

Judgment is measured on code nobody here wrote, with its own ruff/mypy/pytest config
(STYLE "Real inputs for judgment"). The sdists are downloaded once per machine into the
user's cache with pip's ordinary client (pinned versions, ``--no-binary :all:`` so the
tests and configs come along); so is one project venv holding what the packages' own
test suites need (pytest, coverage, freezegun). PyPI unreachable is an error, never a
skip: a judgment test that did not run must not look like one that passed.

A workspace is the sdist's tree (docs and generated files left out), one unit claiming
every source and test module and ``pyproject.toml``, the unit's test command in
``[tool.aidlc-review]``, committed as the base. The package itself is importable from
its ``src/`` through ``PYTHONPATH``, as a developer's editable install would make it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock

# Read once at import, before the test fixtures give every test a cache of its own.
USER_CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "aidlc-judgment"
UNIT = "u1-package"
# What the packages' own test suites import, pinned like the packages themselves.
PROJECT_REQUIREMENTS = ("pytest==9.2.0", "coverage==7.17.5", "freezegun==1.5.5")
TEST_COMMAND = "python -m pytest -q tests"


@dataclass(frozen=True)
class Package:
    name: str
    version: str
    drop: tuple[str, ...]  # left out of the workspace: docs, CI
    mypy_argv: tuple[str, ...]  # how the project runs mypy itself (tox / its config)
    unclaimed: tuple[str, ...] = ()  # in the workspace, not the unit's: generated files

    @property
    def sdist(self) -> str:
        return f"{self.name}-{self.version}.tar.gz"


PACKAGES = {
    "itsdangerous": Package("itsdangerous", "2.2.0", ("docs", "requirements"), ("mypy",)),
    "humanize": Package(
        "humanize",
        "4.12.3",
        ("docs", ".github", "scripts"),
        ("mypy", "."),
        ("src/humanize/_version.py",),
    ),
}


def sdist(package: Package) -> Path:
    """The package's sdist in the user's cache, downloaded on first use."""
    folder = USER_CACHE / "sdists"
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / package.sdist
    with FileLock(str(folder / ".lock")):
        if not target.is_file():
            spec = f"{package.name}=={package.version}"
            pip = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:"]
            _checked([*pip, "-d", str(folder), spec], f"downloading {spec} from PyPI")
    return target


def project_venv() -> Path:
    """A venv with the packages' test requirements, made once per machine."""
    venv = USER_CACHE / f"project-venv-py{sys.version_info[0]}.{sys.version_info[1]}"
    done = venv / ".complete"
    USER_CACHE.mkdir(parents=True, exist_ok=True)
    with FileLock(str(USER_CACHE / ".venv.lock")):
        if not done.is_file():
            shutil.rmtree(venv, ignore_errors=True)
            _checked([sys.executable, "-m", "venv", str(venv)], "creating the project venv")
            python = str(venv / "bin" / "python")
            pip = [python, "-m", "pip", "install", "-q", *PROJECT_REQUIREMENTS]
            _checked(pip, "installing the project venv's requirements from PyPI")
            done.write_text("\n".join(PROJECT_REQUIREMENTS) + "\n")
    return venv


def unpack(package: Package, root: Path) -> Path:
    """The package's tree at ``root``: one unit claiming its code, committed as the base."""
    with tarfile.open(sdist(package)) as archive:
        archive.extractall(root.parent / f".{root.name}-sdist", filter="data")
    shutil.move(root.parent / f".{root.name}-sdist" / f"{package.name}-{package.version}", root)
    (root.parent / f".{root.name}-sdist").rmdir()
    for rel in package.drop:
        target = root / rel
        shutil.rmtree(target) if target.is_dir() else target.unlink(missing_ok=True)
    pyproject = root / "pyproject.toml"
    table = f'\n[tool.aidlc-review]\ntest-command = "{TEST_COMMAND}"\n'
    pyproject.write_text(pyproject.read_text() + table)
    claims = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.py"))
    claims = [c for c in claims if c not in package.unclaimed]
    write_manifest(root, [*claims, "pyproject.toml"])
    summary = root / "aidlc-docs" / "construction" / UNIT / "code-generation" / "code-summary.md"
    summary.write_text("# Code summary\n")
    git(root, "init", "-q", "-b", "main")
    commit(root, "pristine sdist")
    return root


def write_manifest(root: Path, claims: list[str]) -> None:
    folder = root / "aidlc-docs" / "construction" / UNIT / "code-generation"
    folder.mkdir(parents=True, exist_ok=True)
    doc = {"stage": "code-generation", "version": 1, "unit": UNIT, "writes": []}
    doc["writes"] = [{"path": p} for p in claims]
    (folder / "source-manifest.json").write_text(json.dumps(doc, indent=2) + "\n")


def project_env(root: Path, venv: Path) -> dict[str, str]:
    """The variables a developer of the package has: its venv first on PATH, its src/
    importable. This interpreter's bin comes next, for the review's own tools."""
    path = os.pathsep.join([str(venv / "bin"), str(Path(sys.executable).parent)])
    return {
        "PATH": f"{path}{os.pathsep}{os.environ.get('PATH', '')}",
        "PYTHONPATH": str(root / "src"),
        "PYTHONDONTWRITEBYTECODE": "1",
    }


def commit(root: Path, message: str) -> str:
    git(root, "add", "-A")
    ident = ["-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    git(root, *ident, "commit", "-q", "-m", message)
    out = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    )
    return out.stdout.strip()


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def findings_of(root: Path) -> dict:
    folder = root / "aidlc-docs" / "construction" / UNIT / "code-review"
    return json.loads((folder / "code-review-findings.json").read_text())


def final_findings(doc: dict) -> list[dict]:
    """The findings the unit's last pass reports: open, and pre-existing (with a base, on
    lines the unit did not change: reported apart, not blocking)."""
    return [f for f in doc["passes"][-1]["findings"] if f["status"] in ("open", "pre-existing")]


def lines_of(finding: dict) -> set[int]:
    """Every line a finding is located at (its span's lines included)."""
    found: set[int] = set()
    for loc in finding.get("locations") or []:
        end = loc.get("end_line") or loc["line"]
        found.update(range(loc["line"], end + 1))
    return found


def _checked(argv: list[str], what: str) -> None:
    run = subprocess.run(argv, capture_output=True, text=True)
    if run.returncode != 0:
        tail = (run.stderr or run.stdout).strip().splitlines()[-5:]
        raise RuntimeError(f"{what} failed (exit {run.returncode}): " + " | ".join(tail))
