"""What the one verification costs: `review verify --ready` right after a review, and cold.

Run by hand (not part of the test suite):

    .venv/bin/python bench/review/bench_verify.py [--sizes 10 100] [--repeat 3]

Every gate (``review gate``, ``verify``, the verify hook, ``review summary``, Bolt's
finalize) now re-runs the unit's sensors on the claimed bytes (``review/record/proof.py``). For
each size N the workspace of ``bench_review.py`` is generated, reviewed once (untimed),
and then timed:

- ``verify``: ``review verify`` (no ``--ready``: what the pre-commit hook asks on every
  commit; the sensors that run the project's tests are left to the gates);
- ``warm``: ``review verify --ready`` with the review's own cache (a gate right after
  the review, on the same machine);
- ``cold``: the same with an empty XDG_CACHE_HOME (CI's aggregate gate on a fresh
  runner proving another job's record);
- ``review``: the review itself, for scale (a pass on a primed cache).

Each figure is the median of ``--repeat`` runs (the whole process, start-up included).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_review import CLI, UNIT, make_workspace, tool_env  # noqa: E402


def timed(argv: list[str], ws: Path, xdg: Path) -> tuple[float, int]:
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=ws, env=tool_env(xdg), capture_output=True, check=False)
    return time.perf_counter() - started, done.returncode


def verify(ws: Path, xdg: Path, *extra: str) -> tuple[float, int]:
    argv = [CLI, "review", "verify", "--workspace", str(ws), "--unit", UNIT, *extra]
    return timed(argv, ws, xdg)


def one_size(scratch: Path, size: int, repeat: int) -> dict[str, float]:
    figures: dict[str, list[float]] = {"review": [], "verify": [], "warm": [], "cold": []}
    for n in range(repeat):
        ws = scratch / f"ws-{size}-{n}"
        make_workspace(ws, size)
        xdg = scratch / f"xdg-{size}-{n}"
        seconds, code = timed(
            [CLI, "review", "run", "--workspace", str(ws), "--unit", UNIT], ws, xdg
        )
        assert code == 1, f"review run exited {code}"  # the planted F401
        figures["review"].append(seconds)
        seconds, code = verify(ws, xdg)
        assert code == 0, f"verify exited {code}"  # fresh (NOT-READY is not stale)
        figures["verify"].append(seconds)
        seconds, code = verify(ws, xdg, "--ready")
        assert code == 1, f"verify --ready exited {code}"  # NOT-READY, recomputed
        figures["warm"].append(seconds)
        cold = scratch / f"cold-{size}-{n}"
        seconds, code = verify(ws, cold, "--ready")
        assert code == 1, f"cold verify --ready exited {code}"
        figures["cold"].append(seconds)
        shutil.rmtree(cold)
    return {name: statistics.median(values) for name, values in figures.items()}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 100])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        print("| claimed files | review run | verify | verify --ready, warm | --ready, cold |")
        print("|---:|---:|---:|---:|---:|")
        for size in args.sizes:
            f = one_size(Path(tmp), size, args.repeat)
            cells = " | ".join(f"{f[k]:.2f} s" for k in ("review", "verify", "warm", "cold"))
            print(f"| {size} | {cells} |")


if __name__ == "__main__":
    main()
