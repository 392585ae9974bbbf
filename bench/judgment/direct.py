"""The same tools run directly on a copy, as a developer would, with the package's config.

Each tool's diagnostics become ``Hit``s (tool, path, line, code, text). Nothing is written
into the copy: ruff runs without a cache or fixes, mypy's cache, coverage's data and
pytest's report go to a scratch folder, pytest's cache is off.
"""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
import xml.etree.ElementTree as ET
from dataclasses import asdict, dataclass
from pathlib import Path

MYPY_LINE = re.compile(
    r"^(?P<path>[^:\n]+):(?P<line>\d+): error: (?P<text>.*?)(?:  \[(?P<code>[\w-]+)\])?$"
)


@dataclass(frozen=True)
class Hit:
    tool: str
    path: str
    line: int | None
    code: str
    text: str

    def key(self) -> tuple[str, str, str, str]:
        """What the hit says, without where: lines shift when a seed adds some above."""
        return (self.tool, self.path, self.code, self.text)


def run_direct(
    root: Path, files: list[str], mypy_argv: tuple[str, ...], env: dict[str, str], venv: Path
) -> tuple[list[Hit], dict[str, object]]:
    """Every tool's hits on the copy at ``root``, and the figures that are not hits."""
    with tempfile.TemporaryDirectory(prefix="direct-") as scratch:
        work = Path(scratch)
        hits = [
            *_ruff(root, files, env, "ruff", []),
            *_ruff(root, files, env, "ruff S", ["--select", "S"]),
            *_ruff_format(root, files, env),
            *_detect_secrets(root, files, env),
            *_mypy(root, mypy_argv, env, work),
        ]
        tests, figures = _pytest_coverage(root, env, venv, work)
    return hits + tests, figures


def _run(argv: list[str], root: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, timeout=900)


def _ruff(
    root: Path, files: list[str], env: dict[str, str], tool: str, extra: list[str]
) -> list[Hit]:
    argv = ["ruff", "check", "--no-fix", "--no-cache", "--exit-zero", "--output-format", "json"]
    out = _run([*argv, *extra, "--", *files], root, env)
    return [
        Hit(tool, _rel(root, d["filename"]), d["location"]["row"], d["code"] or "", d["message"])
        for d in json.loads(out.stdout or "[]")
    ]


def _ruff_format(root: Path, files: list[str], env: dict[str, str]) -> list[Hit]:
    out = _run(["ruff", "format", "--check", "--no-cache", "--", *files], root, env)
    prefix = "Would reformat: "
    return [
        Hit("ruff format", line[len(prefix) :].strip(), None, "format", "would reformat")
        for line in out.stdout.splitlines()
        if line.startswith(prefix)
    ]


def _detect_secrets(root: Path, files: list[str], env: dict[str, str]) -> list[Hit]:
    out = _run(["detect-secrets", "scan", "--", *files], root, env)
    results = json.loads(out.stdout)["results"]
    return [
        Hit("detect-secrets", path, s["line_number"], s["type"], s["hashed_secret"])
        for path, secrets in results.items()
        for s in secrets
    ]


def _mypy(root: Path, argv: tuple[str, ...], env: dict[str, str], work: Path) -> list[Hit]:
    flags = [
        "--no-pretty",
        "--no-error-summary",
        "--show-error-codes",
        "--cache-dir",
        str(work / "mypy"),
    ]
    out = _run([argv[0], *flags, *argv[1:]], root, env)
    hits = []
    for line in out.stdout.splitlines():
        match = MYPY_LINE.match(line)
        if match:
            hits.append(
                Hit("mypy", match["path"], int(match["line"]), match["code"] or "", match["text"])
            )
    return hits


def _pytest_coverage(
    root: Path, env: dict[str, str], venv: Path, work: Path
) -> tuple[list[Hit], dict[str, object]]:
    python = str(venv / "bin" / "python")
    junit, data = work / "junit.xml", work / ".coverage"
    test = ["-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={junit}", "tests"]
    _run([python, "-m", "coverage", "run", "--branch", f"--data-file={data}", *test], root, env)
    report = work / "coverage.json"
    _run([python, "-m", "coverage", "json", f"--data-file={data}", "-o", str(report)], root, env)
    total = (
        json.loads(report.read_text())["totals"]["percent_covered"] if report.is_file() else None
    )
    hits = [Hit("pytest", "", None, "failed", name) for name in _failed(junit)]
    return hits, {"coverage_total": round(total, 2) if total is not None else None}


def _failed(junit: Path) -> list[str]:
    if not junit.is_file():
        return ["<no report: the test run did not start>"]
    failed = []
    for case in ET.parse(junit).iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            failed.append(f"{case.get('classname')}::{case.get('name')}")
    return failed


def _rel(root: Path, name: str) -> str:
    path = Path(name)
    return path.relative_to(root).as_posix() if path.is_absolute() else path.as_posix()


def as_json(hits: list[Hit]) -> list[dict[str, object]]:
    return [asdict(h) for h in hits]
