"""Judgment benchmark, TypeScript/JavaScript corpus: real packages from the npm registry.

Run by hand (not part of the test suite; about 12 minutes on the shared 2-core machine for
ts-dedent and @fastify/error, about 7 more for wonka):

    .venv/bin/python bench/judgment/bench_npm.py [--packages NAME ...] [--seeds ID ...]
        [--json FILE]

The same three measurements as bench_judgment.py, on tests/judgment/npm.py's packages
(their tarballs, their own eslint, tsc and test-runner config, their pinned dev
dependencies) and tests/judgment/npm_seeds.py's corpus:

- **pristine**: ``review run`` with the builtin reviewer, without a base and with
  ``--base HEAD``: READY, or the findings that block;
- **seeded**: one copy per seed, committed on top of the pristine base, reviewed with
  ``--base <pristine>``; a seed's findings are those the pristine review did not have (by
  fingerprint) or that sit on the seeded line;
- **direct**: eslint, tsc, prettier (where installed), the test command and
  detect-secrets on the same copies (direct_npm.py); a seed's hits are those the pristine
  copy did not have. Each review's seconds and each direct tool's are kept side by side.

The table is report.py's, with the seeds' "enabled" (what in the package's config should
see the defect, or nothing) and the verdict added.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from bench_judgment import (  # noqa: E402
    BIN,
    _at,
    _blocking,
    _brief,
    _copy,
    _git_head,
    _head,
    _new_hits,
    _review,  # noqa: E402
)
from direct import Hit, as_json  # noqa: E402
from direct_npm import run_direct_npm  # noqa: E402
from report import render  # noqa: E402
from tests.judgment import npm  # noqa: E402
from tests.judgment.npm_seeds import SEEDS, Seed  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packages", nargs="*", help="only these packages")
    parser.add_argument("--seeds", nargs="*", help="only these seed IDs")
    parser.add_argument("--json", type=Path, help="also write every figure here")
    args = parser.parse_args(argv)
    results = _measure(args.packages, args.seeds)
    print(render(results))
    print()
    print("\n".join(_notes(results)))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


def _measure(packages: list[str] | None, wanted: list[str] | None) -> dict:
    seeds = [s for s in SEEDS if not wanted or s.id in wanted]
    results: dict = {"packages": {}, "seeds": [], "commit": _head()}
    with tempfile.TemporaryDirectory(prefix="judgment-npm-") as scratch:
        work = Path(scratch)
        for name, package in npm.PACKAGES.items():
            if packages and name not in packages:
                continue
            template = npm.unpack(package, work / name.replace("/", "-"))
            pristine = _pristine(template, package, work)
            results["packages"][name] = pristine
            for seed in (s for s in seeds if s.package == name):
                results["seeds"].append(_seeded(template, package, seed, pristine, work))
                print(f"seeded {seed.id}: done", file=sys.stderr, flush=True)
    results["commit"] += f" (start) .. {_head()} (end)"
    return results


def _pristine(template: Path, package: npm.NpmPackage, work: Path) -> dict:
    stem = template.name
    copy = _copy(template, work / f"{stem}-pristine")
    no_base = _review(copy, _env(copy, work), [])
    based = _copy(template, work / f"{stem}-pristine-base")
    with_base = _review(based, _env(based, work), ["--base", "HEAD"])
    hits, figures = run_direct_npm(
        copy, list(package.claims), package.test_command, _env(copy, work, False)
    )
    return {
        "version": package.version,
        "no_base": no_base,
        "with_base": with_base,
        "fingerprints": sorted({f["fingerprint"] for f in no_base["findings"]}),
        "direct": {"hits": as_json(hits), **figures},
    }


def _seeded(
    template: Path, package: npm.NpmPackage, seed: Seed, pristine: dict, work: Path
) -> dict:
    copy = _copy(template, work / seed.id)
    base = _git_head(copy)
    edited = seed.apply({p: (copy / p).read_text() for p in seed.paths})
    for rel, text in edited.items():
        (copy / rel).write_text(text)
    line = seed.line(edited)
    npm.commit(copy, f"seed {seed.id}")
    review = _review(copy, _env(copy, work), ["--base", base])
    known = set(pristine["fingerprints"])
    mine = [f for f in review["findings"] if f["fingerprint"] not in known or _at(f, seed.at, line)]
    hits, figures = run_direct_npm(
        copy, list(package.claims), package.test_command, _env(copy, work, False)
    )
    before = Counter(Hit(**h).key() for h in pristine["direct"]["hits"])
    new_hits = _new_hits(hits, before)
    return {
        "id": seed.id,
        "package": seed.package,
        "defect": seed.defect,
        "enabled": seed.enabled,
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


def _env(copy: Path, work: Path, state: bool = True) -> dict[str, str]:
    """The developer's variables (this interpreter's bin on PATH for detect-secrets); one
    cache home for the run, a state home per copy."""
    env = {
        **os.environ,
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "XDG_CACHE_HOME": str(work / "cache"),
    }
    if state:
        folder = work / "state" / copy.name
        folder.mkdir(parents=True, exist_ok=True)
        env["XDG_STATE_HOME"] = str(folder)
    return env


def _notes(results: dict) -> list[str]:
    """Per seed: what the package's config enables for it, the verdict, and the seconds of
    the review beside the direct tools' sum."""
    lines = [
        "| seed | enabled in the package's config | verdict | findings | review s | direct s |"
    ]
    lines.append("|---|---|---|---|---|---|")
    for s in results["seeds"]:
        said = "; ".join(f"{f['severity']} {f['where']} {f['rule']}" for f in s["findings"]) or "-"
        direct = sum(s["direct"]["seconds"].values())
        lines.append(
            f"| {s['id']} | {s['enabled'] or 'nothing'} | {s['verdict']} | {said} |"
            f" {s['seconds']} | {direct:.1f} |"
        )
    return lines


if __name__ == "__main__":
    sys.exit(main())
