"""type-check in a workspace with no mypy cache of its own: cold, and from the machine's seed.

    .venv/bin/python bench/sensors/bench_mypy_seed.py [--sizes 10 100 1000] [--repeat 3]

A new workspace is what every Bolt worktree and CI checkout is. Three starts, each the
fastest of ``--repeat``, each in a fresh copy of the workspace (a new path, no cache):
- **cold**: no seed on the machine;
- **seed, same project**: the seed a clean run (type-check and secret-scan, as in a review) of
  another checkout of the same files left (a Bolt worktree after the first unit);
- **seed, other project**: the seed a clean run of an unrelated one-file workspace left
  (only the standard library and stubs carry over).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_sensors import MANIFESTS, make_workspace  # noqa: E402

from aidlc_review.sensors import run_sensors  # noqa: E402

TYPE_CHECK = [m for m in MANIFESTS if m.id == "type-check"]
SCANNED = [m for m in MANIFESTS if m.id in ("type-check", "secret-scan")]


def type_check(ws: Path, files: list[str], cache: Path, manifests=TYPE_CHECK) -> float:
    started = time.perf_counter()
    results = run_sensors(ws, files, manifests, cache_dir=cache)
    elapsed = time.perf_counter() - started
    for result in results:
        if result.status in ("error", "failed") and result.name == "secret-scan":
            raise SystemExit(f"{result.name}: {result.status} (a seed needs a clean scan)")
        if result.status == "error":
            raise SystemExit(f"{result.name}: {result.reason}")
    return elapsed


def fresh_start(
    tmp: Path, source: Path, files: list[str], other: Path, seed_from: Path | None
) -> float:
    """type-check in a new copy of ``source`` with a new cache root. A clean run on
    ``seed_from`` (or on ``other``) goes first, so every start knows mypy's version already;
    only its seed is kept, and for a cold start not even that."""
    run = Path(tempfile.mkdtemp(dir=tmp))
    cache = run / "cache"
    warm_up = seed_from or other
    type_check(warm_up, files if warm_up == source else ["one.py"], cache, SCANNED)
    shutil.rmtree(cache / "scratch")
    if seed_from is None:
        shutil.rmtree(cache / "seeds")
    ws = run / "ws"
    shutil.copytree(source, ws)
    return type_check(ws, files, cache)


def measure(n: int, repeat: int) -> list[str]:
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        source = tmp / "source"
        files = make_workspace(source, n)
        for path in source.rglob("*.py"):  # the planted key: a scan that finds one seeds nothing
            path.write_text(
                "".join(x for x in path.read_text().splitlines(True) if "AKIA" not in x)
            )
        (source / "mypy.ini").write_text("[mypy]\n")
        other = tmp / "other"
        other.mkdir()
        (other / "mypy.ini").write_text("[mypy]\n")
        (other / "one.py").write_text("import json\n\nVALUE: int = len(json.dumps([]))\n")
        starts = {
            "cold": None,
            "seed, same project": source,
            "seed, other project": other,
        }
        best = {
            label: min(fresh_start(tmp, source, files, other, seed) for _ in range(repeat))
            for label, seed in starts.items()
        }
    cold = best["cold"]
    return [f"| {n} | {label} | {s:.3f} | {s / cold:.2f}x |" for label, s in best.items()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print("| files | start | type-check (s) | / cold |")
    print("|---:|---|---:|---:|")
    for n in args.sizes:
        for line in measure(n, args.repeat):
            print(line, flush=True)


if __name__ == "__main__":
    main()
