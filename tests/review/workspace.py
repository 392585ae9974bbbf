"""Small real workspaces for review tests: files, a ruff-configured pyproject, a manifest, git.

Scripted agents are small Python programs written next to the workspace and run
as ``command:`` agents, exactly as a real agent CLI would be.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

UNIT = "u1-orders"
PYPROJECT = """\
[project]
name = "orders"
version = "0.1.0"

[tool.ruff]
line-length = 100

[tool.ruff.lint]
select = ["E", "F", "W"]
"""
CLEAN = '"""Order totals."""\n\n\ndef total(prices: list[int]) -> int:\n    return sum(prices)\n'
# a unit with a real bug (a mean of nothing divides by zero), and its fix
CALC_BUG = (
    "def mean(values: list[float]) -> float:\n    count = len(values)\n"
    "    return sum(values) / count\n"
)
CALC_FIXED = (
    "def mean(values: list[float]) -> float:\n    if not values:\n        return 0.0\n"
    "    return sum(values) / len(values)\n"
)
UNFORMATTED = 'def shout(text: str) -> str:\n    return text.upper( )+"!"\n'
LINT_ERROR = "import os\n\n\ndef answer() -> int:\n    return 42\n"
# Built at run time so no secret-looking literal sits in the test sources themselves.
FAKE_KEY = "AKIA" + "ZQ3TESTFAKE7KEY9"
LEAKY = f'"""Settings."""\n\nAWS_ACCESS_KEY_ID = "{FAKE_KEY}"\n'


def make_workspace(
    root: Path, files: dict[str, str], claims: list[str] | None = None, unit: str | None = UNIT
) -> Path:
    """Write a workspace with the given source files, claimed by the unit's manifest, committed."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(PYPROJECT)
    for rel, text in files.items():
        write(root / rel, text)
    write_manifest(root, claims if claims is not None else sorted(files), unit)
    construction = root / "aidlc-docs" / "construction" / (unit or "")
    write(construction / "code-generation" / "code-summary.md", "# Code summary\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(
        root,
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@example.invalid",
        "commit",
        "-q",
        "-m",
        "base",
    )
    return root


def manifest_path(root: Path, unit: str | None = UNIT) -> Path:
    base = root / "aidlc-docs" / "construction"
    return (base / unit if unit else base) / "code-generation" / "source-manifest.json"


def write_manifest(root: Path, claims: list[str], unit: str | None = UNIT) -> None:
    data: dict[str, object] = {
        "stage": "code-generation",
        "version": 1,
        "writes": [{"path": p} for p in claims],
    }
    if unit:
        data["unit"] = unit
    write(manifest_path(root, unit), json.dumps(data, indent=2) + "\n")


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def script_agent(path: Path, body: str) -> str:
    """Write a Python agent script; return its ``command:`` spec."""
    write(path, textwrap.dedent(body))
    return f"command:{sys.executable} {path}"


def findings_doc(root: Path, unit: str | None = UNIT) -> dict:
    base = root / "aidlc-docs" / "construction"
    folder = (base / unit if unit else base) / "code-review"
    return json.loads((folder / "code-review-findings.json").read_text())


def report_text(root: Path, unit: str | None = UNIT) -> str:
    base = root / "aidlc-docs" / "construction"
    folder = (base / unit if unit else base) / "code-review"
    return (folder / "code-review.md").read_text()


def review_args(root: Path, *extra: str, unit: str | None = UNIT) -> list[str]:
    args = ["review", "run", "--workspace", str(root)]
    if unit:
        args += ["--unit", unit]
    return [*args, *extra]


def every_file_under(root: Path) -> dict[str, bytes]:
    """Every regular file under ``root`` (links left out) and its bytes."""
    found = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = Path(folder) / name
            if not path.is_symlink():
                found[str(path)] = path.read_bytes()
    return found


def files_holding(root: Path, values: tuple[str, ...]) -> list[str]:
    """The files under ``root`` holding any of ``values``: where a secret leaked to."""
    return sorted(
        path
        for path, data in every_file_under(root).items()
        if any(v.encode() in data for v in values)
    )


def reviewed_workspace(root: Path, files: dict[str, str], code: int) -> Path:
    """A workspace holding ``files`` (all claimed), reviewed once: ``review run`` exits ``code``."""
    from aidlc_review.cli.main import main

    ws = make_workspace(root, files)
    assert main(review_args(ws)) == code
    return ws


def counted_calls(monkeypatch: Any, owner: object, name: str) -> list[bool]:
    """One entry per call of the real ``owner.name`` from now on (the real function runs)."""
    calls: list[bool] = []
    real = getattr(owner, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(True)
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return calls
