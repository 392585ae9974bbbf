"""A cold first pass of a small real unit against the same tools run directly.

Run by hand (about 3 minutes):

    .venv/bin/python bench/review/bench_real_package.py --repeat 5 --json out.json

Each package from ``tests/judgment/pypi.py`` (the pinned sdists of humanize and
itsdangerous, with their own ruff/mypy/pytest configs and one unit claiming every module)
is copied fresh for every timed run; copying is not timed. Per run:

- **direct**: the tools a developer runs, one after another, as ``bench/judgment/direct.py``
  runs them: ``ruff check`` (the project's selection, then the security selection ``S``),
  ``ruff format --check``, ``detect-secrets scan``, the project's own mypy command with a
  fresh cache, and ``coverage run -m pytest`` with ``coverage json``;
- **review cold**: ``aidlc-review review run --unit U`` (built-in reviewer, no repairer)
  with an empty cache home and state home: nothing known about tools or files.
- **review primed**: the same with a cache home that reviewed the other package once
  (tool versions known, nothing known of these files).

The figure is the median of ``--repeat`` runs of each, interleaved (direct, cold, primed,
direct, ...) so a slow moment of the machine falls on all three alike.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench" / "judgment"))

from direct import run_direct  # noqa: E402
from tests.judgment import pypi  # noqa: E402

CLI = str(Path(sys.executable).parent / "aidlc-review")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--packages", nargs="*", default=sorted(pypi.PACKAGES))
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    venv = pypi.project_venv()
    compileall = [sys.executable, "-m", "compileall", "-q", str(ROOT / "compiler")]
    subprocess.run(compileall, check=True)  # as pip leaves an installed package
    results = {}
    with tempfile.TemporaryDirectory(prefix="bench-real-") as scratch:
        work = Path(scratch)
        templates = {
            n: pypi.unpack(pypi.PACKAGES[n], work / "templates" / n) for n in args.packages
        }
        primed = _primed_cache(templates, venv, work)
        for name, template in templates.items():
            results[name] = _measure(name, template, venv, work, primed, args.repeat)
            print(_row(name, results[name]), flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


def _measure(
    name: str, template: Path, venv: Path, work: Path, primed: dict[str, Path], repeat: int
) -> dict[str, object]:
    package = pypi.PACKAGES[name]
    files = [p for p in _claimed(template) if p.endswith(".py")]
    times: dict[str, list[float]] = {"direct": [], "cold": [], "primed": []}
    for n in range(repeat):
        copy = _copy(template, work / "runs" / f"{name}-direct-{n}")
        env = {**os.environ, **pypi.project_env(copy, venv)}
        start = time.perf_counter()
        run_direct(copy, files, package.mypy_argv, env, venv)
        times["direct"].append(time.perf_counter() - start)
        for kind in ("cold", "primed"):
            copy = _copy(template, work / "runs" / f"{name}-{kind}-{n}")
            cache = work / "caches" / f"{name}-{kind}-{n}"
            if kind == "primed":
                shutil.copytree(primed[name], cache, symlinks=True)
            times[kind].append(_review(copy, venv, cache, work / "states" / f"{name}-{kind}-{n}"))
    direct = statistics.median(times["direct"])
    return {
        "version": package.version,
        "claimed_py_files": len(files),
        "seconds": {k: [round(t, 3) for t in v] for k, v in times.items()},
        "median": {k: round(statistics.median(v), 3) for k, v in times.items()},
        "cold_over_direct": round(statistics.median(times["cold"]) / direct, 2),
        "primed_over_direct": round(statistics.median(times["primed"]) / direct, 2),
    }


def _primed_cache(templates: dict[str, Path], venv: Path, work: Path) -> dict[str, Path]:
    """For each package, a cache home that reviewed one other package (or a copy of it)."""
    primed = {}
    names = sorted(templates)
    for name in names:
        other = next((n for n in names if n != name), name)
        copy = _copy(templates[other], work / "priming" / f"for-{name}")
        cache = work / "primed" / name
        _review(copy, venv, cache, work / "priming-state" / name)
        primed[name] = cache
    return primed


def _review(copy: Path, venv: Path, cache: Path, state: Path) -> float:
    state.mkdir(parents=True)
    env = {
        **{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},  # as installed
        **pypi.project_env(copy, venv),
        "XDG_CACHE_HOME": str(cache),
        "XDG_STATE_HOME": str(state),
    }
    argv = [CLI, "review", "run", "--workspace", str(copy), "--unit", pypi.UNIT]
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=900)
    took = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"review of {copy} exited {done.returncode}:\n{done.stderr[-2000:]}")
    return took


def _claimed(root: Path) -> list[str]:
    manifest = root / "aidlc-docs/construction" / pypi.UNIT / "code-generation/source-manifest.json"
    return [w["path"] for w in json.loads(manifest.read_text())["writes"]]


def _copy(template: Path, target: Path) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(template, target, symlinks=True)
    return target


def _row(name: str, result: dict) -> str:
    m = result["median"]
    return (
        f"| {name} {result['version']} | {result['claimed_py_files']} | {m['direct']:.2f} | "
        f"{m['cold']:.2f} | {m['primed']:.2f} | {result['cold_over_direct']:.2f}x | "
        f"{result['primed_over_direct']:.2f}x |"
    )


if __name__ == "__main__":
    raise SystemExit(main())
