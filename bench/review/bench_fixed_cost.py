"""The fixed cost of a review, side by side in one run (issue #37). About 2 minutes.

Run by hand (not part of the test suite):

    .venv/bin/python bench/review/bench_fixed_cost.py [--repeat 3] [--sizes 10 100 1000]
        [--base] [--no-small]

``--base`` configures ``base-revision`` in each unchanged-bytes workspace (as Bolt's branch
point would be); ``--no-small`` leaves out the small-unit rows, ``--no-ts`` the TypeScript one.

Prints one table. The workspaces are ``bench_review.py``'s (a git repository, ruff +
mypy strict + coverage configured, N claimed files, one planted F401):

- **small unit**: 6 claimed files (cachetools-sized). ``direct`` runs the same tools one
  after another with fresh caches; ``first pass`` is ``review run --repairer none`` on an
  empty cache (both whole processes). ``fixed cost`` is their difference: what the review
  adds beyond its tools' own time (target: at most 150 ms).
- **small TypeScript unit**: ``bench_npm_unit.py``'s "orders" workspace (4 claimed files;
  eslint, eslint with the security lens's configuration, tsc, prettier, vitest + v8
  coverage, detect-secrets run directly as ``bench/judgment/direct_npm.py`` runs them, as
  ``bench_npm_unit.py`` does) against a cold ``review run``. Its
  node_modules come from npm once per machine (the bench's npm cache, linked into each
  copy; the review installs nothing).
- **unchanged bytes**, for each size N, right after one review (untimed) with its cache:
  ``hook`` is ``hook verify`` (what the pre-commit hook runs on every commit), ``verify``
  is ``review verify`` (the freshness check, the tests' sensor left to the gates),
  ``--ready 1st`` the first ``review verify --ready`` after the review (a gate), and
  ``--ready 2nd`` the next one (the bytes still unchanged). Target: at most 0.3 s at 100.

To measure another commit in the same way (before/after), put its package first on the
path: ``git worktree add /tmp/before <commit>`` and run this script with
``PYTHONPATH=/tmp/before/compiler`` (every process it starts inherits it). Compile both
sides first (``python -m compileall -q /tmp/before/compiler``): the workspaces' environment
sets ``PYTHONDONTWRITEBYTECODE``, and a side without its ``__pycache__`` compiles every
module in every process (about 60 ms more a process).

Every figure is the median of ``--repeat`` runs, in seconds, the process start-up
included. The load average (``/proc/loadavg``, 1 minute) is printed beside each row: the
machine may be shared.
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "judgment"))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench_review import CLI, UNIT, make_workspace, time_direct, tool_env  # noqa: E402

SMALL = 6


def load() -> str:
    return Path("/proc/loadavg").read_text().split()[0]


def timed(argv: list[str], ws: Path, xdg: Path) -> tuple[float, int]:
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=ws, env=tool_env(xdg), capture_output=True, check=False)
    return time.perf_counter() - started, done.returncode


def review_argv(ws: Path, *extra: str) -> list[str]:
    return [CLI, "review", *extra, "--workspace", str(ws), "--unit", UNIT]


def small_unit(scratch: Path, repeat: int) -> dict[str, float]:
    direct, first = [], []
    for n in range(repeat):
        ws = scratch / f"small-{n}"
        files = make_workspace(ws, SMALL)
        copy = scratch / f"small-{n}-direct"
        shutil.copytree(ws, copy)
        direct.append(time_direct(copy, files))
        seconds, code = timed(review_argv(ws, "run"), ws, scratch / f"small-xdg-{n}")
        assert code == 1, f"review run exited {code}"  # the planted F401
        first.append(seconds)
    return {"direct": statistics.median(direct), "first": statistics.median(first)}


def small_ts_unit(scratch: Path, repeat: int) -> dict[str, float]:
    """``bench_npm_unit.py``'s "orders" workspace (4 claimed TypeScript files; eslint, tsc,
    prettier, vitest with v8 coverage; node_modules installed by npm once per machine, in
    the bench's npm cache, linked into each copy): its tools run directly against a cold
    ``review run`` (empty cache and state homes), each on a fresh copy."""
    import bench_npm_unit as npm_bench

    template = npm_bench._orders(scratch / "ts-template")
    claims = list(npm_bench.ORDERS.claims)
    env = {**os.environ, "PATH": f"{npm_bench.BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    direct, first = [], []
    for n in range(repeat):
        copy = npm_bench._copy(template, scratch / f"ts-direct-{n}")
        started = time.perf_counter()
        npm_bench.run_direct_npm(copy, claims, npm_bench.ORDERS.test_command, env, lens=True)
        direct.append(time.perf_counter() - started)
        copy = npm_bench._copy(template, scratch / f"ts-review-{n}")
        took, _ = npm_bench._review(copy, scratch / f"ts-cache-{n}", scratch / f"ts-state-{n}")
        first.append(took)
    return {"direct": statistics.median(direct), "first": statistics.median(first)}


def configure_base(ws: Path) -> None:
    """``base-revision = "HEAD"`` in the workspace's table, committed: the unit's base is
    configured (as Bolt's branch point is), so a gate gives the sensors what the pass gave
    them (``review.record.sensor_replay``); everything claimed is then pre-existing."""
    pyproject = ws / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + 'base-revision = "HEAD"\n')
    git = ["git", "-C", str(ws), "-c", "user.name=bench", "-c", "user.email=bench@example.com"]
    subprocess.run([*git, "commit", "-qam", "base configured"], check=True)


def unchanged(scratch: Path, size: int, repeat: int, base: bool) -> dict[str, float]:
    figures: dict[str, list[float]] = {"hook": [], "verify": [], "ready1": [], "ready2": []}
    for n in range(repeat):  # each repeat: a fresh workspace and cache, reviewed once
        ws = scratch / f"ws-{size}-{n}"
        make_workspace(ws, size)
        if base:
            configure_base(ws)
        xdg = scratch / f"xdg-{size}-{n}"
        _, code = timed(review_argv(ws, "run"), ws, xdg)
        assert code == (0 if base else 1), f"review run exited {code}"  # the planted F401
        for name, argv in (
            ("hook", [CLI, "hook", "verify", "--workspace", str(ws)]),
            ("verify", review_argv(ws, "verify")),
            ("ready1", review_argv(ws, "verify", "--ready")),
            ("ready2", review_argv(ws, "verify", "--ready")),
        ):
            seconds, code = timed(argv, ws, xdg)
            assert code in (0, 1), f"{name} exited {code}"
            figures[name].append(seconds)
        shutil.rmtree(ws)
        shutil.rmtree(xdg)
    return {name: statistics.median(values) for name, values in figures.items()}


def print_small(scratch: Path, repeat: int, typescript: bool) -> None:
    print("| small unit, cold | direct | first pass | fixed cost | ratio | load |")
    print("|---|---:|---:|---:|---:|---|")
    units = [(f"Python ({SMALL} files)", small_unit)]
    if typescript:
        units.append(("TypeScript (orders, 4 files)", small_ts_unit))
    for name, measure in units:
        before = load()
        f = measure(scratch, repeat)
        fixed = (f["first"] - f["direct"]) * 1000
        ratio = f["first"] / f["direct"]
        print(
            f"| {name} | {f['direct']:.2f} | {f['first']:.2f} | {fixed:+.0f} ms | "
            f"{ratio:.2f}x | {before} -> {load()} |",
            flush=True,
        )
    print()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--base", action="store_true", help="configure base-revision")
    parser.add_argument("--no-small", action="store_true", help="skip the small-unit rows")
    parser.add_argument("--no-ts", action="store_true", help="skip the TypeScript unit's row")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        if not args.no_small:
            print_small(scratch, args.repeat, not args.no_ts)
        print("| claimed files | hook | verify | --ready 1st | --ready 2nd | load |")
        print("|---:|---:|---:|---:|---:|---|")
        for size in args.sizes:
            before = load()
            u = unchanged(scratch, size, args.repeat, args.base)
            cells = " | ".join(f"{u[k]:.2f}" for k in ("hook", "verify", "ready1", "ready2"))
            print(f"| {size} | {cells} | {before} -> {load()} |", flush=True)


if __name__ == "__main__":
    main()
