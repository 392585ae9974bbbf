"""Sensor benchmark: the sensors' run against the same tools run directly, and a one-file re-run.

Run by hand (not part of the test suite):

    .venv/bin/python bench/sensors/bench_sensors.py [--sizes 10 100 1000] [--repeat 3]

For each size N a temp workspace gets N claimed Python modules (some unformatted,
some with lint findings, one with a planted key) and one targeted test importing
them all. Every measurement starts cold (fresh result cache, fresh ruff/mypy
caches) and reports the fastest of ``--repeat`` runs (the machine is shared; the
minimum is the least disturbed figure). Tool versions are probed
once beforehand: a real cache directory keeps them per tool binary, so only the
very first run on a machine pays for ``mypy --version`` (about 0.1-0.2 s).

- overhead = run_sensors / the same tools run directly on the same files, one after another
- re-run   = run_sensors after one claimed file changed / the first run

Rows: each sensor alone, the three file-local sensors together, and the whole run
(all five sensors in one ``run_sensors`` call, against the five tools run directly).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "compiler"))

from aidlc_review.sensors import run_sensors  # noqa: E402
from aidlc_review.sensors.manifests import load_sensor_manifests  # noqa: E402
from aidlc_review.sensors.tools import find_tool  # noqa: E402

MANIFESTS = load_sensor_manifests(ROOT)
SENSORS = ["formatter", "linter", "secret-scan", "type-check", "coverage"]
FILE_LOCAL = {"formatter", "linter", "secret-scan"}
MODULE = '''"""Module {i}."""

from __future__ import annotations


def scale_{i}(values: list[int], factor: int = {i}) -> list[int]:
    """Multiply every value."""
    return [v * factor for v in values]


def describe_{i}(name: str) -> str:
    if not name:
        return "anonymous"
    return f"{{name}}-{i}"


class Counter{i}:
    def __init__(self) -> None:
        self.count = 0

    def bump(self, by: int = 1) -> int:
        self.count += by
        return self.count
'''


def make_workspace(root: Path, n: int) -> list[str]:
    (root / "pkg").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "pyproject.toml").write_text("[tool.ruff]\nline-length = 100\n")
    (root / "pkg" / "__init__.py").write_text("")
    files = ["pkg/__init__.py"]
    for i in range(n):
        text = MODULE.format(i=i)
        if i % 10 == 3:
            text = text.replace("factor: int = ", "factor:int=")  # unformatted
        if i % 10 == 5:
            text = text.replace("annotations\n", "annotations\n\nimport os\n")  # F401
        if i == 7:
            text += 'AWS_KEY = "AKIAZ7Q3T5W9X2M4N6P8"\n'
        (root / "pkg" / f"mod_{i:04d}.py").write_text(text)
        files.append(f"pkg/mod_{i:04d}.py")
    imports = "\n".join(f"import pkg.mod_{i:04d}" for i in range(n))
    (root / "tests" / "test_all.py").write_text(
        f"import sys\nsys.path.insert(0, '.')\n{imports}\n\n\ndef test_imported():\n"
        f"    assert pkg.mod_{0:04d}.scale_0([1]) == [0]\n"
    )
    return sorted(files)


def direct_commands(files: list[str], scratch: Path) -> dict[str, list[list[str]]]:
    tool = {name: str(find_tool(name)) for name in ("ruff", "mypy", "detect-secrets", "coverage")}
    data = str(scratch / ".coverage")
    return {
        "formatter": [[tool["ruff"], "format", "--check", "--output-format", "json", "--", *files]],
        "linter": [
            [
                tool["ruff"],
                "check",
                "--output-format",
                "json",
                "--no-fix",
                "--exit-zero",
                "--",
                *files,
            ]
        ],
        "secret-scan": [[tool["detect-secrets"], "scan", *files]],
        "type-check": [
            [
                tool["mypy"],
                "--output",
                "json",
                "--no-error-summary",
                "--show-error-codes",
                "--cache-dir",
                str(scratch / "mypy"),
                "--",
                *files,
            ]
        ],
        "coverage": [
            [
                tool["coverage"],
                "run",
                "--branch",
                f"--data-file={data}",
                "-m",
                "pytest",
                "-p",
                "no:cacheprovider",
                "-q",
                "tests",
            ],
            [
                tool["coverage"],
                "json",
                f"--data-file={data}",
                "-o",
                str(scratch / "cov.json"),
                "--include",
                ",".join(f for f in files),
            ],
        ],
    }


def time_direct(ws: Path, files: list[str], sensor: str) -> float:
    with tempfile.TemporaryDirectory() as scratch:
        env = {
            **os.environ,
            "RUFF_CACHE_DIR": str(Path(scratch) / "ruff"),
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        started = time.perf_counter()
        for argv in direct_commands(files, Path(scratch))[sensor]:
            subprocess.run(argv, cwd=ws, env=env, capture_output=True, check=False)
        return time.perf_counter() - started


def time_sensors(ws: Path, files: list[str], sensors: list[str], cache: Path) -> float:
    manifests = [m for m in MANIFESTS if m.id in sensors]
    settings = {"coverage_command": "pytest -q tests", "coverage_threshold": 0}
    started = time.perf_counter()
    results = run_sensors(ws, files, manifests, cache_dir=cache, settings=settings)
    elapsed = time.perf_counter() - started
    for result in results:
        if result.status == "error":
            raise SystemExit(f"{result.name}: {result.reason}")
    return elapsed


def fastest(fn: Callable[[], float], repeat: int) -> float:
    return min(fn() for _ in range(repeat))


def first_and_rerun(
    ws: Path, files: list[str], sensors: list[str], repeat: int, scratch: Path
) -> tuple[float, float]:
    """Fastest cold run, and fastest re-run after the last claimed file changed."""
    firsts, reruns = [], []
    for attempt in range(repeat):
        cache = scratch / f"cache-{'-'.join(sensors)}-{attempt}"
        firsts.append(time_sensors(ws, files, sensors, cache))
        target = ws / files[-1]
        original = target.read_text()
        target.write_text(original + f"\nEXTRA_{attempt} = {attempt}\n")
        reruns.append(time_sensors(ws, files, sensors, cache))
        target.write_text(original)
    return min(firsts), min(reruns)


def row(n: int, name: str, direct: float, first: float, rerun: float) -> dict[str, object]:
    return {
        "files": n,
        "sensor": name,
        "direct_s": round(direct, 3),
        "sensors_s": round(first, 3),
        "overhead": round(first / direct, 2),
        "rerun_s": round(rerun, 3),
        "rerun_ratio": round(rerun / first, 2),
    }


def measure(n: int, repeat: int) -> list[dict[str, object]]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        ws = scratch / "ws"
        files = make_workspace(ws, n)
        os.environ["XDG_CACHE_HOME"] = str(scratch / "xdg")
        # learn tool versions once, as a persistent cache directory would already have them
        time_sensors(ws, files[:2], SENSORS, scratch / "warm-up")
        direct = {s: fastest(lambda s=s: time_direct(ws, files, s), repeat) for s in SENSORS}
        for sensor in SENSORS:
            first, rerun = first_and_rerun(ws, files, [sensor], repeat, scratch)
            rows.append(row(n, sensor, direct[sensor], first, rerun))
            print(json.dumps(rows[-1]), file=sys.stderr)
        local = sorted(FILE_LOCAL)
        first, rerun = first_and_rerun(ws, files, local, repeat, scratch)
        rows.append(row(n, "file-local (3)", sum(direct[s] for s in local), first, rerun))
        first, rerun = first_and_rerun(ws, files, SENSORS, repeat, scratch)
        rows.append(row(n, "**whole run (5)**", sum(direct.values()), first, rerun))
        print(json.dumps(rows[-2:]), file=sys.stderr)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rows = [row for n in args.sizes for row in measure(n, args.repeat)]
    print("| files | sensor | direct (s) | sensors (s) | overhead | re-run (s) | re-run / first |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    for r in rows:
        print(
            f"| {r['files']} | {r['sensor']} | {r['direct_s']} | {r['sensors_s']} | "
            f"{r['overhead']}x | {r['rerun_s']} | {r['rerun_ratio']}x |"
        )


if __name__ == "__main__":
    main()
