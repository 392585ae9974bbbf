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


def _reference_compiler(work: Path, env: dict[str, str], runs: int) -> dict[str, float]:
    """Upstream's own graph compiler on a copy of its project, timed the same way."""
    bun = subprocess.run(
        [str(ROOT.parent / "shared" / "bin" / "aidlc-upstream"), "--which-bun"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    project = work / "upstream"
    shutil.copytree(ROOT.parent / "shared" / "aidlc-upstream", project, symlinks=True)
    tool = str(project / ".claude" / "tools" / "aidlc-graph.ts")
    here = dict(env, PWD=str(project))
    os.chdir(project)
    try:
        return {
            "compile": _time([bun, tool, "compile"], here, runs, False),
            "check": _time([bun, tool, "compile", "--check"], here, runs, False),
            "floor": _time([bun, "-e", "0"], here, runs, False),
        }
    finally:
        os.chdir(ROOT)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs
    work = Path(tempfile.mkdtemp())
    env = dict(os.environ, XDG_CACHE_HOME=str(work / "cache"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed: pip compiles the package once
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "compiler")], check=True)
    reference = work / "reference"
    shutil.copytree(ROOT.parent / "shared" / "aidlc-harness", reference)
    synthetic = write_synthetic(work / "synthetic", count=300)
    python_floor = _time([sys.executable, "-c", "pass"], env, runs, False)
    upstream = _reference_compiler(work, env, runs)
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
    print(
        f"reference compiler (upstream's `bun .claude/tools/aidlc-graph.ts`, same runs): "
        f"compile {upstream['compile']:.0f} ms, compile --check {upstream['check']:.0f} ms, "
        f"`bun -e 0` floor {upstream['floor']:.0f} ms"
    )
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
