"""Whole-process time of ``aidlc-review compile`` (cold) and ``compile --check`` (up to date),
side by side with upstream's own graph compiler.

Run: .venv/bin/python bench/compile/bench_compile.py [--runs N]
Needs ../shared/aidlc-harness (the reference harness) and upstream's engine (the reference
compiler: AIDLC_UPSTREAM names an export of it, ../shared/README.md; run with the bun that
../shared/bin/aidlc-upstream installs).

Every case runs once per round, round after round, so a machine that speeds up or slows
down during the run moves every case alike and the ratios stay fair. Prints a Markdown
table of medians and the two ratios the targets are stated in.
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
from tests import engine_export  # noqa: E402
from tests.compiler.synthetic import write_synthetic  # noqa: E402

BIN = str(Path(sys.executable).with_name("aidlc-review"))


class Case:
    """One command line, timed as a whole process; ``fresh`` are folders removed before
    every run (the cache, for a cold start; the outputs, for a first compile)."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path, *fresh: Path):
        self.argv, self.env, self.cwd, self.fresh = argv, env, cwd, fresh
        self.samples: list[float] = []

    def run(self) -> None:
        for folder in self.fresh:
            shutil.rmtree(folder, ignore_errors=True)
        start = time.perf_counter()
        subprocess.run(
            self.argv,
            env=self.env,
            cwd=self.cwd,
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.samples.append(time.perf_counter() - start)

    @property
    def median_ms(self) -> float:
        return statistics.median(self.samples) * 1000


def _bun() -> str:
    return subprocess.run(
        [str(engine_export.RUNNER), "--which-bun"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def _cases(work: Path, env: dict[str, str]) -> dict[str, Case]:
    project = work / "upstream"
    engine = engine_export.for_script("bench_compile")
    shutil.copytree(engine, project, symlinks=True)
    bun, tool = _bun(), str(project / ".claude" / "tools" / "aidlc-graph.ts")
    here = dict(env, PWD=str(project))
    cases = {
        "python floor": Case([sys.executable, "-c", "pass"], env, ROOT),
        "bun floor": Case([bun, "-e", "0"], here, project),
        "reference compile": Case([bun, tool, "compile"], here, project),
        "reference check": Case([bun, tool, "compile", "--check"], here, project),
    }
    reference = work / "reference"
    shutil.copytree(ROOT.parent / "shared" / "aidlc-harness", reference)
    synthetic = write_synthetic(work / "synthetic", count=300)
    for name, harness in (("reference", reference), ("synthetic", synthetic)):
        base = [BIN, "compile", "--harness", str(harness), "--display-root", ".claude"]
        for kind, argv in (("cold", base), ("unstamped", [*base, "--check"])):
            cache = work / f"cache-{name}-{kind}"
            cases[f"{name} {kind}"] = Case(argv, dict(env, XDG_CACHE_HOME=str(cache)), ROOT, cache)
        first = work / f"first-{name}"  # no tools/data/ yet: nothing pins the numbers
        out, cache = first / "tools" / "data", work / f"cache-{name}-first"
        shutil.copytree(harness, first)
        shutil.rmtree(out, ignore_errors=True)  # the synthetic harness has none yet
        argv = [BIN, "compile", "--harness", str(first), "--display-root", ".claude"]
        cases[f"{name} first"] = Case(argv, dict(env, XDG_CACHE_HOME=str(cache)), ROOT, cache, out)
        stamped = dict(env, XDG_CACHE_HOME=str(work / f"cache-{name}-stamped"))
        for argv in (base, [*base, "--check"]):  # writes the outputs, then the stamp
            subprocess.run(argv, env=stamped, check=True, capture_output=True)
        cases[f"{name} stamped"] = Case([*base, "--check"], stamped, ROOT)
    return cases


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs
    work = Path(tempfile.mkdtemp())
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed: pip compiles the package once
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "compiler")], check=True)
    try:
        cases = _cases(work, env)
        for _ in range(runs):
            for case in cases.values():
                case.run()
    finally:
        shutil.rmtree(work)
    ms = {name: case.median_ms for name, case in cases.items()}
    print(
        "| harness | cold compile (ms) | first compile, no outputs yet (ms) "
        "| check, up to date (ms) | check, no stamp (ms) |"
    )
    print("|---|---|---|---|---|")
    print(
        f"| upstream's compiler (bun) | {ms['reference compile']:.0f} | — | "
        f"{ms['reference check']:.0f} | — |"
    )
    for name, label in (
        ("reference", "ours, reference harness (32 stages)"),
        ("synthetic", "ours, synthetic (300 stages)"),
    ):
        print(
            f"| {label} | {ms[name + ' cold']:.0f} | {ms[name + ' first']:.0f} | "
            f"{ms[name + ' stamped']:.0f} | {ms[name + ' unstamped']:.0f} |"
        )
    print(
        f"\nfloors: `python -c pass` {ms['python floor']:.0f} ms, `bun -e 0` "
        f"{ms['bun floor']:.0f} ms; medians of {runs} interleaved rounds"
    )
    print(
        f"ratios to upstream's compiler: cold compile "
        f"{ms['reference cold'] / ms['reference compile']:.2f}x (target <= 5), "
        f"first compile {ms['reference first'] / ms['reference compile']:.2f}x, "
        f"compile --check {ms['reference stamped'] / ms['reference check']:.2f}x (target <= 1)"
    )


if __name__ == "__main__":
    main()
