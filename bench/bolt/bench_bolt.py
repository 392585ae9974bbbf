"""Wall time of a Bolt run: 4 independent units, fixed-cost agents, --jobs 1 vs --jobs 2.

Each unit costs one developer call and one reviewer call of COST seconds each, plus the
pipeline's own work (worktree, sensors, finalize, merge). Run from the project root:

    .venv/bin/python bench/bolt/bench_bolt.py [--cost 1.0] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
UNITS = "- name: u1\n- name: u2\n- name: u3\n- name: u4\n"
IDENTITY = {
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@invalid",
}


def make_repo(root: Path) -> Path:
    repo = root / "repo"
    repo.mkdir()
    for argv in (["init", "-q", "-b", "main"], ["commit", "-q", "--allow-empty", "-m", "initial"]):
        subprocess.run(["git", "-C", str(repo), *argv], check=True)
    (root / "units.yaml").write_text(UNITS)
    return repo


def one_run(jobs: int, cost: float) -> float:
    with tempfile.TemporaryDirectory(prefix="bolt-bench-") as tmp:
        root = Path(tmp)
        repo = make_repo(root)
        agent = f"command:{sys.executable} {HERE / 'fixed_agent.py'} {cost}"
        argv = [
            sys.executable,
            "-m",
            "aidlc_review",
            "bolt",
            "run",
            "--workspace",
            str(repo),
            "--units",
            str(root / "units.yaml"),
            "--developer",
            agent,
            "--reviewer",
            agent,
            "--jobs",
            str(jobs),
        ]
        started = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, text=True)
        elapsed = time.perf_counter() - started
        if done.returncode != 0:
            raise SystemExit(
                f"bolt run --jobs {jobs} failed ({done.returncode}):\n{done.stderr[-2000:]}"
            )
        return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cost", type=float, default=1.0, help="seconds per agent call")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    os.environ.update(IDENTITY)
    os.environ.setdefault("XDG_CACHE_HOME", tempfile.mkdtemp(prefix="bolt-bench-cache-"))
    best = {}
    for jobs in (1, 2):
        times = [one_run(jobs, args.cost) for _ in range(args.repeat)]
        best[jobs] = min(times)
        print(
            f"--jobs {jobs}: "
            + ", ".join(f"{t:.2f}s" for t in times)
            + f" (best {best[jobs]:.2f}s)"
        )
    print(
        f"speedup --jobs 2 over --jobs 1: {best[1] / best[2]:.2f}x "
        f"(cores: {os.cpu_count()}, agent cost {args.cost:g}s x 2 calls x 4 units)"
    )


if __name__ == "__main__":
    main()
