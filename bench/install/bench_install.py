"""Whole-process time of ``aidlc-review install`` into a fresh copy of upstream's project.

Run: .venv/bin/python bench/install/bench_install.py [--runs N] [--compiler DIR]
Needs upstream's engine: AIDLC_UPSTREAM names an export of it (../shared/README.md).
Two rows: the install alone (bun not on PATH, so install writes the sources and names
upstream's four generator commands, exit 1), and the install with upstream's generators
(bun on PATH, exit 0). ``--compiler`` runs another checkout's
``compiler/`` (on PYTHONPATH) for a head-to-head. Prints a Markdown table: median wall and
median CPU (user + system, the process and its children).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from tests import engine_export  # noqa: E402


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _time(
    engine: Path, env: dict[str, str], runs: int, work: Path, expect: int
) -> tuple[float, float]:
    walls, cpus = [], []
    for run in range(runs):
        project = work / f"project-{run}"
        shutil.copytree(engine, project, symlinks=True)
        argv = [
            sys.executable,
            "-m",
            "aidlc_review",
            "install",
            "--harness",
            str(project / ".claude"),
        ]
        cpu, start = _children_cpu(), time.perf_counter()
        done = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        walls.append(time.perf_counter() - start)
        cpus.append(_children_cpu() - cpu)
        if done.returncode != expect:
            raise SystemExit(f"install exited {done.returncode}, not {expect}: {done.stderr!r}")
        shutil.rmtree(project)
    return statistics.median(walls) * 1000, statistics.median(cpus) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--compiler", type=Path, help="another checkout's compiler/ folder")
    options = parser.parse_args()
    engine = engine_export.for_script("bench_install")
    bun = subprocess.run(
        [str(engine_export.RUNNER), "--which-bun"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    work = Path(tempfile.mkdtemp())
    env = dict(os.environ, XDG_CACHE_HOME=str(work / "cache"), XDG_STATE_HOME=str(work / "state"))
    if options.compiler:
        env["PYTHONPATH"] = str(options.compiler.resolve())
    plain = dict(env, PATH=os.pathsep.join(["/usr/bin", "/bin"]))
    with_bun = dict(env, PATH=os.pathsep.join([str(Path(bun).parent), "/usr/bin", "/bin"]))
    print("| install into a fresh upstream project | wall (ms) | CPU (ms) |")
    print("|---|---|---|")
    for name, run_env, expect in (
        ("sources only (no bun on PATH)", plain, 1),
        ("with upstream's four generators", with_bun, 0),
    ):
        wall, cpu = _time(engine, run_env, options.runs, work, expect)
        print(f"| {name} | {wall:.0f} | {cpu:.0f} |")
    print(f"\nmedian of {options.runs} runs")
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
