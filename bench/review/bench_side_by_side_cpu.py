"""Two package trees side by side, interleaved, in wall-clock AND CPU seconds (issue #37).

Run by hand (not part of the test suite), about 2 minutes for the defaults:

    .venv/bin/python bench/review/bench_side_by_side_cpu.py /tmp/before/compiler \\
        /tmp/after/compiler [--sizes 10 100] [--repeat 3] [--no-small]

Each argument is a folder put first on ``PYTHONPATH`` for every process of its side (a
``git worktree add`` or ``git archive`` of a commit, compiled with ``compileall``: the
workspaces' environment sets ``PYTHONDONTWRITEBYTECODE``). Repeats alternate the sides,
so load that comes and goes touches both. CPU is user + sys of the command's whole
process tree (``getrusage(RUSAGE_CHILDREN)``): on a machine other people load, it moves
far less than the wall clock, and on a quiet machine a single-threaded command's wall
time is close to it.

Two tables, medians, ``wall / CPU`` seconds:

- **small unit**: ``bench_fixed_cost``'s 6-file Python unit; its tools run directly with
  fresh caches against a cold ``review run``; fixed cost and ratio in both measures;
- **unchanged bytes**: for each size, a fresh workspace reviewed once (no base configured),
  then ``hook verify``, ``review verify`` and ``review verify --ready`` twice.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_review import BIN, CLI, UNIT, direct_commands, make_workspace, tool_env  # noqa: E402

Figure = tuple[float, float]  # wall, CPU
COMMANDS = ("hook", "verify", "ready1", "ready2")


def _cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def timed(argv: list[str], ws: Path, env: dict[str, str]) -> tuple[Figure, int]:
    cpu, started = _cpu(), time.perf_counter()
    done = subprocess.run(argv, cwd=ws, env=env, capture_output=True, check=False)
    return (time.perf_counter() - started, _cpu() - cpu), done.returncode


def side_env(xdg: Path, tree: str) -> dict[str, str]:
    return {**tool_env(xdg), "PYTHONPATH": tree}


def direct(ws: Path, files: list[str]) -> Figure:
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        env = {**tool_env(scratch / "xdg"), "RUFF_CACHE_DIR": str(scratch / "ruff")}
        cpu, started = _cpu(), time.perf_counter()
        for argv in direct_commands(files, scratch):
            subprocess.run([str(BIN / argv[0]), *argv[1:]], cwd=ws, env=env, capture_output=True)
        return time.perf_counter() - started, _cpu() - cpu


def small(scratch: Path, trees: list[str], repeat: int) -> dict[str, dict[str, list[Figure]]]:
    found: dict[str, dict[str, list[Figure]]] = {t: {"direct": [], "first": []} for t in trees}
    for n in range(repeat):
        for i, tree in enumerate(trees):
            ws = scratch / f"small-{i}-{n}"
            files = make_workspace(ws, 6)
            shutil.copytree(ws, scratch / f"small-{i}-{n}-direct")
            found[tree]["direct"].append(direct(scratch / f"small-{i}-{n}-direct", files))
            argv = [CLI, "review", "run", "--workspace", str(ws), "--unit", UNIT]
            figure, code = timed(argv, ws, side_env(scratch / f"small-xdg-{i}-{n}", tree))
            assert code == 1, f"review run exited {code}"  # the planted F401
            found[tree]["first"].append(figure)
    return found


def unchanged(
    scratch: Path, trees: list[str], size: int, repeat: int
) -> dict[str, dict[str, list[Figure]]]:
    found: dict[str, dict[str, list[Figure]]] = {t: {c: [] for c in COMMANDS} for t in trees}
    for n in range(repeat):
        for i, tree in enumerate(trees):
            ws, xdg = scratch / f"ws-{size}-{i}-{n}", scratch / f"xdg-{size}-{i}-{n}"
            make_workspace(ws, size)
            env = side_env(xdg, tree)
            review = [CLI, "review", "{verb}", "--workspace", str(ws), "--unit", UNIT]
            _, code = timed([a.replace("{verb}", "run") for a in review], ws, env)
            assert code == 1, f"review run exited {code}"
            verify = [a.replace("{verb}", "verify") for a in review]
            for name, argv in (
                ("hook", [CLI, "hook", "verify", "--workspace", str(ws)]),
                ("verify", verify),
                ("ready1", [*verify, "--ready"]),
                ("ready2", [*verify, "--ready"]),
            ):
                figure, code = timed(argv, ws, env)
                assert code in (0, 1), f"{name} exited {code}"
                found[tree][name].append(figure)
            shutil.rmtree(ws)
            shutil.rmtree(xdg)
    return found


def median(figures: list[Figure]) -> Figure:
    return statistics.median(f[0] for f in figures), statistics.median(f[1] for f in figures)


def load() -> str:
    return Path("/proc/loadavg").read_text().split()[0]


def print_small(found: dict[str, dict[str, list[Figure]]], before: str) -> None:
    print("| side | direct | first pass | fixed cost | ratio |")
    print("|---|---:|---:|---:|---:|")
    for tree, figures in found.items():
        (dw, dc), (fw, fc) = median(figures["direct"]), median(figures["first"])
        print(
            f"| {tree} | {dw:.2f} / {dc:.2f} | {fw:.2f} / {fc:.2f} | "
            f"{1000 * (fw - dw):+.0f} / {1000 * (fc - dc):+.0f} ms | "
            f"{fw / dw:.2f}x / {fc / dc:.2f}x |"
        )
    print(f"\nload {before} -> {load()}\n", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("trees", nargs="+", help="a package folder per side (PYTHONPATH)")
    parser.add_argument("--sizes", type=int, nargs="*", default=[10, 100])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-small", action="store_true", help="skip the small unit")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        if not args.no_small:
            print_small(small(scratch, args.trees, args.repeat), load())
        print("| side | claimed files | hook | verify | --ready 1st | --ready 2nd | load |")
        print("|---|---:|---:|---:|---:|---:|---|")
        for size in args.sizes:
            before = load()
            found = unchanged(scratch, args.trees, size, args.repeat)
            for tree, figures in found.items():
                cells = " | ".join("{:.2f} / {:.2f}".format(*median(figures[c])) for c in COMMANDS)
                print(f"| {tree} | {size} | {cells} | {before} -> {load()} |", flush=True)


if __name__ == "__main__":
    main()
