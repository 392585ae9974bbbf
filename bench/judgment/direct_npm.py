"""The npm package's own tools run directly on a copy, as its developer would run them.

eslint (the package's config, its inline comments honoured), tsc (``--noEmit -p
tsconfig.json`` where there is one), the package's test command with its runner's report
(jest's JSON, node's and vitest's JUnit; vitest's coverage only where the project installs
a coverage provider), prettier where it is installed, and detect-secrets. Each
diagnostic is a ``Hit``; a failing test is one hit without a line. Nothing is written into
the copy: reports go to a scratch folder. The wall time of each tool is kept: the floor a
review's first pass is compared with.
"""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

from direct import Hit

TSC_LINE = re.compile(
    r"^(?P<path>[^(\n]+)\((?P<line>\d+),\d+\): error (?P<code>TS\d+): (?P<text>.*)$"
)


# the security lens's own eslint configuration (sensors/aidlc-security.md), run with the
# project's eslint when a side-by-side figure must count the same work the review does
CONFIGS = Path(__file__).resolve().parents[2] / "compiler/aidlc_review/sensors/configs"
LENS = CONFIGS / "eslint-lens.config.mjs"


def run_direct_npm(
    root: Path, files: list[str], test_command: str, env: dict[str, str], lens: bool = False
) -> tuple[list[Hit], dict[str, object]]:
    """Every tool's hits on the copy at ``root``, and each tool's seconds; ``lens``: also
    eslint with the security lens's rules (the judgment corpus's floor leaves it out: it is
    the review's, not the package's)."""
    seconds: dict[str, float] = {}
    hits: list[Hit] = []
    tools = [
        ("eslint", lambda: _eslint(root, files, env)),
        ("tsc", lambda: _tsc(root, env)),
        ("prettier", lambda: _prettier(root, files, env)),
        ("tests", lambda: _tests(root, test_command, env, work)),
        ("detect-secrets", lambda: _detect_secrets(root, files, env)),
    ]
    if lens:
        tools.insert(1, ("eslint (security lens)", lambda: _eslint(root, files, env, LENS)))
    with tempfile.TemporaryDirectory(prefix="direct-npm-") as scratch:
        work = Path(scratch)
        for name, tool in tools:
            start = time.perf_counter()
            hits.extend(tool())
            seconds[name] = round(time.perf_counter() - start, 2)
    return hits, {"seconds": seconds}


def _run(argv: list[str], root: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, timeout=900)


def _bin(root: Path, name: str) -> str | None:
    path = root / "node_modules" / ".bin" / name
    return str(path) if path.exists() else None


def _eslint(
    root: Path, files: list[str], env: dict[str, str], config: Path | None = None
) -> list[Hit]:
    eslint = _bin(root, "eslint")
    if eslint is None:
        return []
    mine = ["--config", str(config)] if config else []
    scripts = [f for f in files if f.rsplit(".", 1)[-1] in ("js", "mjs", "cjs", "jsx", "ts",
                                                             "tsx", "mts", "cts")]  # fmt: skip
    if config and not scripts:
        return []
    lens_env = {**env, "ESLINT_USE_FLAT_CONFIG": "true"} if config else env
    out = _run([eslint, *mine, "--format", "json", "--", *(scripts if config else files)], root,
               lens_env)  # fmt: skip
    return [
        Hit("eslint", _rel(root, r["filePath"]), m.get("line"), m.get("ruleId") or "", m["message"])
        for r in json.loads(out.stdout or "[]")
        for m in r["messages"]
    ]


def _tsc(root: Path, env: dict[str, str]) -> list[Hit]:
    tsc = _bin(root, "tsc")
    if tsc is None or not (root / "tsconfig.json").is_file():
        return []
    out = _run([tsc, "--noEmit", "--pretty", "false", "-p", "tsconfig.json"], root, env)
    found = (TSC_LINE.match(line) for line in out.stdout.splitlines())
    return [Hit("tsc", m["path"], int(m["line"]), m["code"], m["text"]) for m in found if m]


def _prettier(root: Path, files: list[str], env: dict[str, str]) -> list[Hit]:
    prettier = _bin(root, "prettier")
    if prettier is None:
        return []
    out = _run([prettier, "--list-different", "--", *files], root, env)
    return [
        Hit("prettier", p.strip(), None, "format", "would reformat")
        for p in out.stdout.splitlines()
    ]


def _tests(root: Path, command: str, env: dict[str, str], work: Path) -> list[Hit]:
    """The package's test command with coverage, as the review runs it, the runner writing
    the report it knows how to write (into the scratch folder)."""
    argv = command.split()
    if "jest" in argv[:2]:
        report, cover = work / "jest.json", f"--coverageDirectory={work / 'coverage'}"
        _run([*argv, "--json", f"--outputFile={report}", "--coverage", cover], root, env)
        return [Hit("tests", "", None, "failed", n) for n in _jest_failed(report)]
    report = work / "junit.xml"
    extra = [f"--outputFile.junit={report}", "--reporter=junit"]
    if _vitest_coverage(root):  # without a provider vitest stops before any test runs
        extra += ["--coverage.enabled=true", f"--coverage.reportsDirectory={work / 'coverage'}"]
    full = [*argv, *extra]
    if "node" in argv[:1]:
        extra = ["--test-reporter=junit", f"--test-reporter-destination={report}"]
        full = [*argv[:2], *extra, "--experimental-test-coverage", *argv[2:]]
    _run(full, root, env)
    return [Hit("tests", "", None, "failed", n) for n in _junit_failed(report)]


def _vitest_coverage(root: Path) -> bool:
    """Whether the project installs one of vitest's coverage providers."""
    scope = root / "node_modules" / "@vitest"
    return any((scope / name).is_dir() for name in ("coverage-v8", "coverage-istanbul"))


def _jest_failed(report: Path) -> list[str]:
    if not report.is_file():
        return ["<no report: the test run did not start>"]
    doc = json.loads(report.read_text())
    failed = [
        a["fullName"]
        for suite in doc["testResults"]
        for a in suite["assertionResults"]
        if a["status"] == "failed"
    ]
    broken = [
        s["name"]
        for s in doc["testResults"]
        if s["status"] == "failed" and not s["assertionResults"]
    ]
    return failed + [f"<suite did not run: {Path(b).name}>" for b in broken]


def _junit_failed(report: Path) -> list[str]:
    if not report.is_file():
        return ["<no report: the test run did not start>"]
    return [
        str(case.get("name"))
        for case in ET.parse(report).iter("testcase")
        if case.find("failure") is not None or case.find("error") is not None
    ]


def _detect_secrets(root: Path, files: list[str], env: dict[str, str]) -> list[Hit]:
    out = _run(["detect-secrets", "scan", "--", *files], root, env)
    results = json.loads(out.stdout)["results"]
    return [
        Hit("detect-secrets", path, s["line_number"], s["type"], s["hashed_secret"])
        for path, secrets in results.items()
        for s in secrets
    ]


def _rel(root: Path, name: str) -> str:
    path = Path(name)
    return path.relative_to(root.resolve()).as_posix() if path.is_absolute() else path.as_posix()
