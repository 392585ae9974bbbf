"""Whole-process time of ``aidlc-review compile`` (cold) and ``compile --check`` (up to date).

Run: .venv/bin/python bench/compile/bench_compile.py [--runs N]
Needs ../shared/aidlc-harness (the reference harness). Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from tests.compiler.synthetic import write_synthetic  # noqa: E402

BIN = str(Path(sys.executable).with_name("aidlc-review"))


def _time(argv: list[str], env: dict[str, str], runs: int, fresh_cache: bool) -> float:
    samples = []
    for _ in range(runs):
        if fresh_cache:
            shutil.rmtree(env["XDG_CACHE_HOME"], ignore_errors=True)
        start = time.perf_counter()
        subprocess.run(
            argv, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs
    work = Path(tempfile.mkdtemp())
    env = dict(os.environ, XDG_CACHE_HOME=str(work / "cache"))
    reference = work / "reference"
    shutil.copytree(ROOT.parent / "shared" / "aidlc-harness", reference)
    synthetic = write_synthetic(work / "synthetic", count=300)
    python_floor = _time([sys.executable, "-c", "pass"], env, runs, False)
    print("| harness | cold compile (ms) | check, up to date (ms) | check, no stamp (ms) |")
    print("|---|---|---|---|")
    for name, root in (("reference (32 stages)", reference), ("synthetic (300 stages)", synthetic)):
        base = [BIN, "compile", "--harness", str(root), "--display-root", ".claude"]
        cold = _time(base, env, runs, fresh_cache=True)
        unstamped = _time([*base, "--check"], env, runs, fresh_cache=True)
        subprocess.run([*base, "--check"], env=env, check=True)
        stamped = _time([*base, "--check"], env, runs, fresh_cache=False)
        print(f"| {name} | {cold:.0f} | {stamped:.0f} | {unstamped:.0f} |")
    print(f"\n`python -c pass` floor: {python_floor:.0f} ms (median of {runs})")
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
