"""A TypeScript/JavaScript unit's cold first pass against its tools run directly.

Run by hand (about 5 minutes):

    .venv/bin/python bench/review/bench_npm_unit.py --repeat 3 --json out.json

Three units, each copied fresh for every timed run (copying is not timed):

- **orders**: a small TypeScript project made here with the four tools a TypeScript
  project typically pins (eslint 9 + typescript-eslint, tsc strict, vitest with its v8
  coverage provider, prettier), its files formatted by that prettier, lint- and type-clean,
  every line tested;
- **ts-dedent 2.3.0** and **@fastify/error 4.3.0** from the npm registry with their own
  configs and pinned dev dependencies (tests/judgment/npm.py).

Per run:

- **direct**: the tools a developer runs, one after another, as bench/judgment/direct_npm.py
  runs them: eslint, tsc (where there is a tsconfig), prettier (where installed), the test
  command with coverage, detect-secrets; and eslint a second time with the security lens's
  configuration, as the review does;
- **review cold**: ``aidlc-review review run --unit U`` (built-in reviewer) with empty cache
  and state homes;
- **review primed**: the same with a cache home that reviewed another unit once.

The figure is the median of ``--repeat`` runs, interleaved (direct, cold, primed, ...).
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

from direct_npm import run_direct_npm  # noqa: E402
from tests.judgment import npm  # noqa: E402

BIN = Path(sys.executable).parent
CLI = str(BIN / "aidlc-review")
ORDERS = npm.NpmPackage(
    "orders-bench",
    "1.0.0",
    (
        "typescript@5.9.3",
        "eslint@9.39.5",
        "typescript-eslint@8.74.0",
        "vitest@3.2.7",
        "@vitest/coverage-v8@3.2.7",
        "prettier@3.10.2",
    ),
    ("src/money.ts", "src/cart.ts", "src/discount.ts", "tests/cart.test.ts"),
    "npx vitest run tests",
)
ORDERS_FILES = {
    "package.json": '{"name": "orders", "version": "1.0.0", "type": "module", "private": true}\n',
    "tsconfig.json": json.dumps(
        {
            "compilerOptions": {
                "strict": True,
                "noEmit": True,
                "noUnusedLocals": True,
                "target": "ES2022",
                "module": "ESNext",
                "moduleResolution": "Bundler",
                "skipLibCheck": True,
            },
            "include": ["src", "tests"],
        }
    ),
    "eslint.config.js": 'import tseslint from "typescript-eslint";\n'
    "export default tseslint.config(...tseslint.configs.recommended);\n",
    ".prettierrc": '{"semi": true}\n',
    "src/money.ts": "export type Cents = number;\n\n"
    "export function format(amount: Cents): string {\n"
    "  const sign = amount < 0 ? '-' : '';\n"
    "  const abs = Math.abs(amount);\n"
    "  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;\n}\n",
    "src/discount.ts": "import type { Cents } from './money';\n\n"
    "export function discounted(total: Cents, percent: number): Cents {\n"
    "  if (percent <= 0) {\n    return total;\n  }\n"
    "  return Math.round((total * (100 - Math.min(percent, 100))) / 100);\n}\n",
    "src/cart.ts": "import { discounted } from './discount';\n"
    "import { format, type Cents } from './money';\n\n"
    "export interface Line {\n  sku: string;\n  price: Cents;\n  quantity: number;\n}\n\n"
    "export function total(lines: Line[], percent = 0): Cents {\n"
    "  const sum = lines.reduce((acc, line) => acc + line.price * line.quantity, 0);\n"
    "  return discounted(sum, percent);\n}\n\n"
    "export function receipt(lines: Line[], percent = 0): string {\n"
    "  return lines.map((l) => `${l.sku} x${l.quantity}`).concat(format(total(lines, percent)))"
    ".join('\\n');\n}\n",
    "tests/cart.test.ts": "import { expect, test } from 'vitest';\n"
    "import { receipt, total } from '../src/cart';\nimport { format } from '../src/money';\n\n"
    "const lines = [\n  { sku: 'a', price: 250, quantity: 2 },\n"
    "  { sku: 'b', price: 99, quantity: 1 },\n];\n\n"
    "test('totals', () => {\n  expect(total(lines)).toBe(599);\n});\n\n"
    "test('discounts', () => {\n  expect(total(lines, 10)).toBe(539);\n"
    "  expect(total(lines, 200)).toBe(0);\n});\n\n"
    "test('formats', () => {\n  expect(format(-5)).toBe('-0.05');\n"
    "  expect(receipt(lines)).toBe('a x2\\nb x1\\n5.99');\n});\n",
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "compiler")], check=True)
    results = {}
    with tempfile.TemporaryDirectory(prefix="bench-npm-") as scratch:
        work = Path(scratch)
        templates = {"orders": _orders(work / "templates" / "orders")}
        for name, package in npm.PACKAGES.items():
            templates[name] = npm.unpack(package, work / "templates" / name.replace("/", "-"))
        packages = {"orders": ORDERS, **npm.PACKAGES}
        primed = _primed_cache(templates, work)
        for name, template in templates.items():
            results[name] = _measure(name, packages[name], template, work, primed, args.repeat)
            print(_row(name, results[name]), flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


def _orders(root: Path) -> Path:
    """The orders project: its files formatted by its own prettier, committed."""
    installed = npm.node_modules(ORDERS)
    for rel, text in ORDERS_FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / ".gitignore").write_text("node_modules\ncoverage\n")
    (root / ".aidlc-review.toml").write_text(f'test-command = "{ORDERS.test_command}"\n')
    (root / "node_modules").symlink_to(installed)
    prettier = [str(installed / ".bin" / "prettier"), "--write", "--", *ORDERS.claims]
    subprocess.run(prettier, cwd=root, check=True, capture_output=True)
    npm.write_manifest(root, list(ORDERS.claims))
    summary = root / "aidlc-docs/construction" / npm.UNIT / "code-generation/code-summary.md"
    summary.write_text("# Code summary\n")
    npm.git(root, "init", "-q", "-b", "main")
    npm.commit(root, "orders")
    return root


def _measure(
    name: str, package: npm.NpmPackage, template: Path, work: Path, primed: dict, repeat: int
) -> dict[str, object]:
    times: dict[str, list[float]] = {"direct": [], "cold": [], "primed": []}
    tools: list[dict[str, float]] = []
    verdicts = set()
    for n in range(repeat):
        copy = _copy(template, work / "runs" / f"{name}-direct-{n}".replace("/", "-"))
        env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
        start = time.perf_counter()
        # the same work the review does: the security lens's eslint run too
        claims, command = list(package.claims), package.test_command
        _, figures = run_direct_npm(copy, claims, command, env, lens=True)
        times["direct"].append(time.perf_counter() - start)
        tools.append(figures["seconds"])
        for kind in ("cold", "primed"):
            tag = f"{name}-{kind}-{n}".replace("/", "-")
            copy = _copy(template, work / "runs" / tag)
            cache = work / "caches" / tag
            if kind == "primed":
                shutil.copytree(primed[name], cache, symlinks=True)
            took, verdict = _review(copy, cache, work / "states" / tag)
            times[kind].append(took)
            verdicts.add(verdict)
    direct = statistics.median(times["direct"])
    return {
        "version": package.version,
        "claimed_files": len(package.claims),
        "verdicts": sorted(verdicts),
        "seconds": {k: [round(t, 3) for t in v] for k, v in times.items()},
        "direct_tools_median": {t: statistics.median(r[t] for r in tools) for t in tools[0]},
        "median": {k: round(statistics.median(v), 3) for k, v in times.items()},
        "cold_over_direct": round(statistics.median(times["cold"]) / direct, 2),
        "primed_over_direct": round(statistics.median(times["primed"]) / direct, 2),
    }


def _primed_cache(templates: dict[str, Path], work: Path) -> dict[str, Path]:
    """For each unit, a cache home that reviewed another unit once."""
    primed = {}
    names = list(templates)
    for i, name in enumerate(names):
        other = names[(i + 1) % len(names)]
        tag = f"for-{name}".replace("/", "-")
        copy = _copy(templates[other], work / "priming" / tag)
        _review(copy, work / "primed" / tag, work / "priming-state" / tag)
        primed[name] = work / "primed" / tag
    return primed


def _review(copy: Path, cache: Path, state: Path) -> tuple[float, str]:
    state.mkdir(parents=True)
    env = {
        **{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
        "XDG_CACHE_HOME": str(cache),
        "XDG_STATE_HOME": str(state),
    }
    argv = [CLI, "review", "run", "--workspace", str(copy), "--unit", npm.UNIT]
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=900)
    took = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"review of {copy} exited {done.returncode}:\n{done.stderr[-2000:]}")
    (state / "stderr.txt").write_text(done.stderr)
    return took, "READY" if done.returncode == 0 else "NOT-READY"


def _copy(template: Path, target: Path) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(template, target, symlinks=True)
    return target


def _row(name: str, result: dict) -> str:
    m = result["median"]
    tools = ", ".join(f"{t} {s:.2f}" for t, s in result["direct_tools_median"].items())
    return (
        f"| {name} {result['version']} | {result['claimed_files']} | {m['direct']:.2f} | "
        f"{m['cold']:.2f} | {m['primed']:.2f} | {result['cold_over_direct']:.2f}x | "
        f"{result['primed_over_direct']:.2f}x | {'/'.join(result['verdicts'])} | {tools} |"
    )


if __name__ == "__main__":
    raise SystemExit(main())
