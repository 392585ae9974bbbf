"""Judgment benchmark: the review's verdicts and findings on real packages from PyPI.

Run by hand (not part of the test suite; about 20 minutes):

    .venv/bin/python bench/judgment/bench_judgment.py [--packages NAME ...] [--seeds ID ...]
        [--json FILE]
    .venv/bin/python bench/judgment/bench_judgment.py --merge A.json B.json  # one table

For each package (tests/judgment/pypi.py: pinned sdists with their own ruff, mypy and
pytest config, a project venv with their test requirements):

- **pristine**: the package's source and tests as one unit, ``review run`` with the
  builtin (sensors-only) reviewer, without a base (all of it new) and with ``--base HEAD``
  (nothing changed): READY, or the findings that block;
- **seeded**: one copy per seed of bench/judgment/seeds.py, the seed committed on top of
  the pristine base and reviewed with ``--base <pristine>``. A seed's findings are the
  open findings whose fingerprint the pristine review did not have, or that sit on the
  seeded line; "at the line" is one of them located at it; "blocks" is one of them
  open (not pre-existing) and critical or major;
- **direct**: ruff check (the package config), ruff check --select S, ruff format --check,
  detect-secrets scan, mypy as the project runs it, coverage run -m pytest, on the same
  copies; a seed's hits are the ones the pristine copy did not have.

The direct figures do not depend on this project's code: they are kept in the user's
cache by the copy's content and the tools' versions, so a second run only reviews.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from direct import Hit, as_json, run_direct  # noqa: E402
from report import render  # noqa: E402
from seeds import SEEDS, Seed  # noqa: E402
from tests.judgment import pypi  # noqa: E402

BIN = Path(sys.executable).parent
CLI = str(BIN / "aidlc-review")
BLOCKING = ("critical", "major")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packages", nargs="*", help="only these packages")
    parser.add_argument("--seeds", nargs="*", help="only these seed IDs")
    parser.add_argument("--json", type=Path, help="also write every figure here")
    parser.add_argument("--merge", nargs="+", type=Path, help="only render these --json files")
    args = parser.parse_args(argv)
    results = _merged(args.merge) if args.merge else _measure(args.packages, args.seeds)
    print(render(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


def _measure(packages: list[str] | None, wanted: list[str] | None) -> dict:
    venv = pypi.project_venv()
    seeds = [s for s in SEEDS if not wanted or s.id in wanted]
    started = _head()  # the tree may move on while the benchmark runs: both ends are shown
    results: dict = {"packages": {}, "seeds": []}
    with tempfile.TemporaryDirectory(prefix="judgment-") as scratch:
        work = Path(scratch)
        for name, package in pypi.PACKAGES.items():
            if packages and name not in packages:
                continue
            template = pypi.unpack(package, work / name)
            pristine = _pristine(template, package, venv, work)
            results["packages"][name] = pristine
            for seed in (s for s in seeds if s.package == name):
                results["seeds"].append(_seeded(template, package, seed, pristine, venv, work))
                print(f"seeded {seed.id}: done", file=sys.stderr, flush=True)
    results["commit"] = f"{started} (start) .. {_head()} (end)"
    return results


def _merged(files: list[Path]) -> dict:
    """Runs of separate packages (two processes on two cores) as one result."""
    parts = [json.loads(f.read_text()) for f in files]
    return {
        "packages": {k: v for p in parts for k, v in p["packages"].items()},
        "seeds": [s for p in parts for s in p["seeds"]],
        "commit": " | ".join(p["commit"] for p in parts),
    }


def _pristine(template: Path, package: pypi.Package, venv: Path, work: Path) -> dict:
    copy = _copy(template, work / f"{package.name}-pristine")
    env = _env(copy, venv, work)
    no_base = _review(copy, env, [])
    based = _copy(template, work / f"{package.name}-pristine-base")
    with_base = _review(based, _env(based, venv, work), ["--base", "HEAD"])
    hits, figures = _direct(copy, package, venv)
    return {
        "version": package.version,
        "no_base": no_base,
        "with_base": with_base,
        "fingerprints": sorted({f["fingerprint"] for f in no_base["findings"]}),
        "direct": {"hits": as_json(hits), **figures},
    }


def _seeded(
    template: Path, package: pypi.Package, seed: Seed, pristine: dict, venv: Path, work: Path
) -> dict:
    copy = _copy(template, work / seed.id)
    base = _git_head(copy)
    edited = seed.apply({e.path: (copy / e.path).read_text() for e in seed.edits})
    for rel, text in edited.items():
        (copy / rel).write_text(text)
    line = seed.line((copy / seed.at).read_text())
    pypi.commit(copy, f"seed {seed.id}")
    review = _review(copy, _env(copy, venv, work), ["--base", base])
    known = set(pristine["fingerprints"])
    mine = [f for f in review["findings"] if f["fingerprint"] not in known or _at(f, seed.at, line)]
    hits, figures = _direct(copy, package, venv)
    before = Counter(Hit(**h).key() for h in pristine["direct"]["hits"])
    new_hits = _new_hits(hits, before)
    return {
        "id": seed.id,
        "package": seed.package,
        "defect": seed.defect,
        "at": f"{seed.at}:{line}",
        "verdict": review["verdict"],
        "findings": [_brief(f) for f in mine],
        "at_line": any(_at(f, seed.at, line) for f in mine),
        "blocks": any(_blocking(f) for f in mine),
        "seconds": review["seconds"],
        "direct": {
            "hits": as_json(new_hits),
            "at_line": sorted({h.tool for h in new_hits if h.path == seed.at and h.line == line}),
            **figures,
        },
    }


def _review(copy: Path, env: dict[str, str], extra: list[str]) -> dict:
    start = time.perf_counter()
    argv = [CLI, "review", "run", "--workspace", str(copy), "--unit", pypi.UNIT, *extra]
    run = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=1800)
    seconds = round(time.perf_counter() - start, 1)
    try:
        doc = pypi.findings_of(copy)
    except FileNotFoundError:
        return {
            "verdict": f"error (exit {run.returncode})",
            "findings": [],
            "seconds": seconds,
            "stderr": run.stderr[-2000:],
        }
    findings = pypi.final_findings(doc)
    return {
        "verdict": doc["verdict"],
        "exit": run.returncode,
        "findings": findings,
        "blocking": [_brief(f) for f in findings if _blocking(f)],
        "seconds": seconds,
    }


def _direct(copy: Path, package: pypi.Package, venv: Path) -> tuple[list[Hit], dict]:
    """The direct tools' hits, from the user's cache when this exact copy was run before."""
    files = _claimed(copy)
    key = _direct_key(copy)
    cached = pypi.USER_CACHE / "direct" / f"{key}.json"
    if cached.is_file():
        data = json.loads(cached.read_text())
        return [Hit(**h) for h in data["hits"]], data["figures"]
    env = {**os.environ, **pypi.project_env(copy, venv)}
    hits, figures = run_direct(
        copy, [f for f in files if f.endswith(".py")], package.mypy_argv, env, venv
    )
    cached.parent.mkdir(parents=True, exist_ok=True)
    cached.write_text(json.dumps({"hits": as_json(hits), "figures": figures}))
    return hits, figures


def _direct_key(copy: Path) -> str:
    """Every byte the direct tools can see (unclaimed files too: they import them), and the
    tools' versions."""
    digest = hashlib.sha256()
    for path in sorted(copy.rglob("*")):
        rel = path.relative_to(copy).as_posix()
        if path.is_file() and not rel.startswith((".git/", "aidlc-docs/")):
            digest.update(rel.encode() + b"\0" + path.read_bytes() + b"\0")
    for tool in ("ruff", "mypy", "detect-secrets"):
        version = subprocess.run([str(BIN / tool), "--version"], capture_output=True, text=True)
        digest.update(version.stdout.encode())
    digest.update(" ".join(pypi.PROJECT_REQUIREMENTS).encode())
    return digest.hexdigest()[:32]


def _new_hits(hits: list[Hit], before: Counter) -> list[Hit]:
    left = Counter(before)
    new = []
    for hit in hits:
        if left[hit.key()] > 0:
            left[hit.key()] -= 1
        else:
            new.append(hit)
    return new


def _at(finding: dict, path: str, line: int) -> bool:
    return finding["path"] == path and line in pypi.lines_of(finding)


def _blocking(finding: dict) -> bool:
    return finding["severity"] in BLOCKING and finding["status"] == "open"


def _brief(finding: dict) -> dict:
    return {
        "severity": finding["severity"],
        "checks": finding.get("checks") or [finding.get("check")],
        "rule": finding.get("rule"),
        "where": f"{finding['path']}:{finding['location']}"
        if finding["location"]
        else finding["path"],
        "finding": finding["finding"][:160],
        "status": finding["status"],
    }


def _claimed(copy: Path) -> list[str]:
    manifest = (
        copy
        / "aidlc-docs"
        / "construction"
        / pypi.UNIT
        / "code-generation"
        / "source-manifest.json"
    )
    return [w["path"] for w in json.loads(manifest.read_text())["writes"]]


def _copy(template: Path, target: Path) -> Path:
    shutil.copytree(template, target, symlinks=True)
    return target


def _env(copy: Path, venv: Path, work: Path) -> dict[str, str]:
    """The package developer's variables; one cache home for the run, a state home per copy."""
    state = work / "state" / copy.name
    state.mkdir(parents=True)
    return {
        **os.environ,
        **pypi.project_env(copy, venv),
        "XDG_CACHE_HOME": str(work / "cache"),
        "XDG_STATE_HOME": str(state),
    }


def _git_head(copy: Path) -> str:
    out = subprocess.run(
        ["git", "-C", str(copy), "rev-parse", "HEAD"], capture_output=True, text=True
    )
    return out.stdout.strip()


def _head() -> str:
    out = subprocess.run(
        ["git", "-C", str(ROOT), "log", "-1", "--format=%h %cI"], capture_output=True, text=True
    )
    return out.stdout.strip()


if __name__ == "__main__":
    sys.exit(main())
