"""Whole-review benchmark: `aidlc-review review run` against the tools it runs, and a re-review.

Run by hand (not part of the test suite):

    .venv/bin/python bench/review/bench_review.py [--sizes 10 100 1000] [--unclaimed 1000]
        [--repeat 3] [--json FILE]

For each size N a template workspace is generated once: a git repository whose
pyproject configures ruff (format + lint), mypy (strict), coverage and the
unit's targeted test command (``[tool.aidlc-review]``), N claimed files (the
package ``__init__``, N-2 modules that import one another, one targeted test
module that exercises them all) listed one by one in the unit's source manifest,
and ONE planted lint error (an unused import, a blocking F401) in one module.
Every timed run works on a fresh copy of that template (copying is not timed)
and gets its own XDG_CACHE_HOME:

- ``cold``: an empty XDG_CACHE_HOME (first review ever on the machine: tool
  versions are probed, mypy starts without a cache);
- ``primed``: a copy of an XDG_CACHE_HOME that has reviewed one other, tiny
  workspace (tool versions known; nothing known about these files, no mypy cache
  for this workspace): the first review of a new unit on a working machine.

Scenarios (every figure is the whole process, interpreter start-up included):

- ``direct``: ruff format --check, ruff check, mypy, detect-secrets scan,
  coverage run -m pytest + coverage json, one after another on the claimed
  files, with fresh ruff and mypy caches (the "cold" tools);
- ``review cold`` / ``review primed``: one ``review run --repairer none`` (pass 1,
  NOT-READY because of the planted error);
- ``gated``: one ``review run --mode gated --repairer command:...`` whose scripted
  repairer deletes the planted import; pass 1, the repair and pass 2 are split
  by timestamping the progress lines on stderr as they arrive;
- ``two runs``: ``review run --repairer none`` twice, the file fixed in between
  (untimed), each invocation timed as a whole process.

``--unclaimed K`` adds a workspace with 10 claimed files and K unclaimed
modules (committed, under ``src/legacy/``, which no claimed file imports).
Each figure is the median of ``--repeat`` runs; the fastest is printed too.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
CLI = str(BIN / "aidlc-review")
UNIT = "u1-catalog"
Add = Callable[[str, float], None]
PLANTED = "import os\n"  # before the dataclasses import: ruff F401, a blocking (major) finding
ANCHOR = "from dataclasses import dataclass\n"
TEST_COMMAND = "python -m pytest -q tests/test_app.py"

PYPROJECT = """\
[project]
name = "catalog-service"
version = "1.4.0"
requires-python = ">=3.11"

[tool.pytest.ini_options]
pythonpath = ["src"]
testpaths = ["tests"]

[tool.ruff]
line-length = 100
target-version = "py311"

[tool.ruff.lint]
select = ["E", "F", "W", "I", "B"]

[tool.mypy]
python_version = "3.11"
strict = true
mypy_path = "src"

[tool.coverage.run]
branch = true
source = ["src"]

[tool.coverage.report]
fail_under = 90

[tool.aidlc-review]
test-command = "{test_command}"
coverage-threshold = 90
"""

MODULE = '''\
"""Catalog module {i}: prices and counters."""

from __future__ import annotations

from dataclasses import dataclass
{imports}

@dataclass(frozen=True)
class Item{i}:
    name: str
    price: int


def scale_{i}(values: list[int], factor: int = {factor}) -> list[int]:
    """Multiply every value."""
    return [v * factor for v in values]


def describe_{i}(name: str) -> str:
    if not name:
        return "anonymous"
    return f"{{name}}-{i}"


def chain_{i}(values: list[int]) -> list[int]:
    return {chain}


class Counter{i}:
    def __init__(self) -> None:
        self.count = 0

    def bump(self, by: int = 1) -> int:
        self.count += by
        return self.count
'''

TEST = '''\
"""Targeted tests of the catalog unit."""

from __future__ import annotations

import importlib

from app.mod_0000 import Counter0, describe_0

COUNT = {count}


def test_first_module_directly() -> None:
    assert describe_0("") == "anonymous"
    assert Counter0().bump(2) == 2


def test_every_module() -> None:
    for index in range(COUNT):
        module = importlib.import_module(f"app.mod_{{index:04d}}")
        assert getattr(module, f"scale_{{index}}")([1]) == [index % 7 + 1]
        assert getattr(module, f"describe_{{index}}")("") == "anonymous"
        assert getattr(module, f"describe_{{index}}")("x") == f"x-{{index}}"
        assert len(getattr(module, f"chain_{{index}}")([1, 2])) == 2
        assert getattr(module, f"Counter{{index}}")().bump() == 1
        assert getattr(module, f"Item{{index}}")("a", 1).price == 1
'''

LEGACY = '''\
"""Legacy module {i}: not part of the unit under review."""


def legacy_{i}(value: int) -> int:
    return value + {i}
'''

REPAIRER = '''\
"""Scripted repairer: delete the planted unused import from the one file that has it."""
import os
import pathlib

target = pathlib.Path(os.environ["AIDLC_WORKSPACE"]) / "src/app/mod_0000.py"
target.write_text(target.read_text().replace({planted!r}, "", 1))
'''


def module_text(i: int) -> str:
    if i == 0:
        imports, chain = "", "scale_0(values)"
    else:
        j = i // 2
        imports, chain = f"\nfrom app.mod_{j:04d} import scale_{j}\n", f"scale_{j}(values)"
    return MODULE.format(i=i, factor=i % 7 + 1, imports=imports, chain=chain)


def make_workspace(root: Path, claimed: int, unclaimed: int = 0) -> list[str]:
    """A committed git workspace with ``claimed`` claimed files; returns them, sorted."""
    modules = claimed - 2
    app = root / "src" / "app"
    app.mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "pyproject.toml").write_text(PYPROJECT.format(test_command=TEST_COMMAND))
    (root / ".gitignore").write_text(".coverage\n__pycache__/\n.mypy_cache/\n.ruff_cache/\n")
    (app / "__init__.py").write_text('"""The catalog unit."""\n')
    for i in range(modules):
        text = module_text(i)
        if i == 0:
            text = text.replace(ANCHOR, PLANTED + ANCHOR, 1)
        (app / f"mod_{i:04d}.py").write_text(text)
    (root / "tests" / "test_app.py").write_text(TEST.format(count=modules))
    if unclaimed:
        legacy = root / "src" / "legacy"
        legacy.mkdir()
        (legacy / "__init__.py").write_text("")
        for i in range(unclaimed - 1):
            (legacy / f"old_{i:04d}.py").write_text(LEGACY.format(i=i))
    files = ["src/app/__init__.py", "tests/test_app.py"]
    files += [f"src/app/mod_{i:04d}.py" for i in range(modules)]
    manifest = {
        "stage": "code-generation",
        "unit": UNIT,
        "version": 1,
        "writes": [{"path": f} for f in sorted(files)],
    }
    target = root / "aidlc-docs" / "construction" / UNIT / "code-generation"
    target.mkdir(parents=True)
    (target / "source-manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    git = ["git", "-C", str(root), "-c", "user.name=bench", "-c", "user.email=bench@example.com"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "code generation"], check=True)
    return sorted(files)


def tool_env(xdg: Path) -> dict[str, str]:
    return {
        **os.environ,
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "XDG_CACHE_HOME": str(xdg),
        "PYTHONDONTWRITEBYTECODE": "1",
    }


def direct_commands(files: list[str], scratch: Path) -> list[list[str]]:
    """The tools the review's sensors run, as a person would run them on the claimed files."""
    py = [f for f in files if f.endswith(".py")]
    sources = [f for f in py if not f.startswith("tests/")]  # the coverage sensor's exclude
    data = f"--data-file={scratch / '.coverage'}"
    return [
        ["ruff", "format", "--check", "--output-format", "json", "--", *py],
        ["ruff", "check", "--output-format", "json", "--no-fix", "--exit-zero", "--", *py],
        [
            "mypy",
            "--output",
            "json",
            "--no-error-summary",
            "--show-error-codes",
            "--cache-dir",
            str(scratch / "mypy"),
            "--",
            *py,
        ],  # fmt: skip
        ["detect-secrets", "scan", *files],
        [
            "coverage",
            "run",
            "--branch",
            data,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            *TEST_COMMAND.split()[3:],
        ],  # fmt: skip
        ["coverage", "json", data, "-o", str(scratch / "cov.json"), "--include", ",".join(sources)],
    ]


def time_direct(ws: Path, files: list[str]) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        env = {**tool_env(scratch / "xdg"), "RUFF_CACHE_DIR": str(scratch / "ruff")}
        started = time.perf_counter()
        for argv in direct_commands(files, scratch):
            argv = [str(BIN / argv[0]), *argv[1:]]
            subprocess.run(argv, cwd=ws, env=env, capture_output=True, check=False)
        return time.perf_counter() - started


_SENSOR_DONE = re.compile(r"review: (?P<name>[\w-]+): \w+ \(\d+ finding\(s\), (?P<ms>\d+) ms, ")


@dataclass
class Run:
    seconds: float
    code: int
    lines: list[tuple[float, str]] = field(default_factory=list)  # (seconds since start, text)

    def at(self, pattern: str, last: bool = False) -> float:
        hits = [t for t, text in self.lines if re.search(pattern, text)]
        if not hits:
            raise SystemExit(f"no progress line matches {pattern!r}:\n" + self.transcript())
        return hits[-1] if last else hits[0]

    def sensor_ms(self, after: float = 0.0) -> dict[str, int]:
        """Each sensor's own duration (its progress line), in the pass starting at ``after``."""
        found = [_SENSOR_DONE.search(text) for t, text in self.lines if t >= after]
        return {m["name"]: int(m["ms"]) for m in found if m}

    def transcript(self) -> str:
        return "\n".join(f"{t:8.3f} {text}" for t, text in self.lines)


def review(ws: Path, xdg: Path, *extra: str) -> Run:
    argv = [CLI, "review", "run", "--workspace", str(ws), "--unit", UNIT, *extra]
    started = time.perf_counter()
    proc = subprocess.Popen(
        argv,
        cwd=ws,
        env=tool_env(xdg),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    lines = [(time.perf_counter() - started, line.rstrip("\n")) for line in proc.stderr]
    code = proc.wait()
    run = Run(time.perf_counter() - started, code, lines)
    if code not in (0, 1):
        raise SystemExit(f"review run exited {code}:\n{run.transcript()}")
    return run


def expect(run: Run, code: int, what: str) -> Run:
    if run.code != code:
        raise SystemExit(f"{what}: expected exit {code}, got {run.code}:\n{run.transcript()}")
    return run


class Bench:
    def __init__(self, scratch: Path, repeat: int):
        self.scratch = scratch
        self.repeat = repeat
        self.count = 0
        self.repairer = scratch / "repair.py"
        self.repairer.write_text(REPAIRER.format(planted=PLANTED))
        self.primed = scratch / "primed-xdg"
        tiny = self.copy(self.template(4, 0))
        expect(review(tiny, self.primed), 1, "priming review")

    def template(self, claimed: int, unclaimed: int) -> Path:
        root = self.scratch / f"template-{claimed}-{unclaimed}"
        if not root.exists():
            make_workspace(root, claimed, unclaimed)
        return root

    def copy(self, template: Path) -> Path:
        self.count += 1
        target = self.scratch / f"run-{self.count}" / "ws"
        shutil.copytree(template, target, symlinks=True)
        return target

    def xdg(self, primed: bool) -> Path:
        target = self.scratch / f"xdg-{self.count}"
        if primed:
            shutil.copytree(self.primed, target)
        return target

    def fresh(self, template: Path, primed: bool) -> tuple[Path, Path]:
        ws = self.copy(template)
        return ws, self.xdg(primed)

    def measure(self, claimed: int, unclaimed: int) -> dict[str, object]:
        template = self.template(claimed, unclaimed)
        files = make_files_list(template)
        samples: dict[str, list[float]] = {}

        def add(key: str, value: float) -> None:
            samples.setdefault(key, []).append(value)

        for _ in range(self.repeat):
            add("direct", time_direct(template, files))
            for primed in (False, True):
                run = expect(review(*self.fresh(template, primed)), 1, "pass 1")
                key = "review_primed" if primed else "review_cold"
                add(key, run.seconds)
                start = run.at(r"pass 1/\d: freezing")
                froze = run.at(r"froze \d+ claimed")
                # the last sensor's line: they no longer finish in manifest order
                sensors_end = run.at(r"review: [\w-]+: (passed|failed|skipped|error) \(", last=True)
                add(f"{key}.startup", start)
                add(f"{key}.freeze_baseline", froze - start)
                add(f"{key}.sensors", sensors_end - froze)
                for name, ms in run.sensor_ms().items():
                    add(f"{key}.sensor.{name}", ms / 1000)
                add(f"{key}.conclude_exit", run.seconds - sensors_end)
            self.gated(template, add)
            self.two_runs(template, add)
        return {
            "claimed": claimed,
            "unclaimed": unclaimed,
            "median": {k: round(statistics.median(v), 3) for k, v in samples.items()},
            "fastest": {k: round(min(v), 3) for k, v in samples.items()},
        }

    def gated(self, template: Path, add: Add) -> None:
        ws, xdg = self.fresh(template, True)
        repairer = f"command:{sys.executable} {self.repairer}"
        run = expect(review(ws, xdg, "--mode", "gated", "--repairer", repairer), 0, "gated")
        pass1 = run.at(r"pass 1/2: NOT-READY")
        repair_start = run.at(r"repairer .*: repairing")
        repair_end = run.at(r"repairer .*: done")
        pass2_start = run.at(r"pass 2/2: freezing")
        pass2_end = run.at(r"pass 2/2: READY")
        add("gated.total", run.seconds)
        add("gated.pass1", pass1)
        add("gated.repair", repair_end - repair_start)
        add("gated.pass2", pass2_end - pass2_start)
        for name, ms in run.sensor_ms(pass2_start).items():
            add(f"gated.pass2.sensor.{name}", ms / 1000)

    def two_runs(self, template: Path, add: Add) -> None:
        ws, xdg = self.fresh(template, True)
        first = expect(review(ws, xdg), 1, "first invocation")
        target = ws / "src/app/mod_0000.py"
        target.write_text(target.read_text().replace(PLANTED, "", 1))
        second = expect(review(ws, xdg), 0, "second invocation")
        add("two_runs.first", first.seconds)
        add("two_runs.second", second.seconds)


def make_files_list(template: Path) -> list[str]:
    manifest = template / "aidlc-docs" / "construction" / UNIT / "code-generation"
    data = json.loads((manifest / "source-manifest.json").read_text())
    return sorted(w["path"] for w in data["writes"])


def table(results: list[dict[str, object]]) -> str:
    rows = [
        "| claimed (+unclaimed) | direct | review cold | review primed | overhead primed "
        "| pass 1 | pass 2 | pass 2 / pass 1 | 2nd run / 1st run |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        m: dict[str, float] = r["median"]  # type: ignore[assignment]
        label = f"{r['claimed']}" + (f" (+{r['unclaimed']})" if r["unclaimed"] else "")
        over = m["review_primed"] - m["direct"]
        rows.append(
            f"| {label} | {m['direct']:.2f} | {m['review_cold']:.2f} | {m['review_primed']:.2f} "
            f"| {m['review_primed'] / m['direct']:.2f}x (+{over * 1000:.0f} ms) "
            f"| {m['gated.pass1']:.2f} | {m['gated.pass2']:.2f} "
            f"| {m['gated.pass2'] / m['gated.pass1']:.2f}x "
            f"| {m['two_runs.second'] / m['two_runs.first']:.2f}x |"
        )
    return "\n".join(rows)


def breakdown(results: list[dict[str, object]]) -> str:
    """Where the primed pass-1 time goes, and each sensor's pass-1 -> pass-2 time (seconds)."""
    names = ["formatter", "linter", "secret-scan", "type-check", "coverage", "findings-schema"]
    rows = [
        "| claimed (+unclaimed) | start-up | freeze + baseline | sensors | conclude + exit | "
        + " | ".join(f"{n} p1 -> p2" for n in names)
        + " |",
        "|---|---:|---:|---:|---:|" + "---:|" * len(names),
    ]
    for r in results:
        m: dict[str, float] = r["median"]  # type: ignore[assignment]
        label = f"{r['claimed']}" + (f" (+{r['unclaimed']})" if r["unclaimed"] else "")
        first = [m.get(f"review_primed.sensor.{n}", 0.0) for n in names]
        second = [m.get(f"gated.pass2.sensor.{n}", 0.0) for n in names]
        cells = [f"{a:.3f} -> {b:.3f}" for a, b in zip(first, second, strict=True)]
        rows.append(
            f"| {label} | {m['review_primed.startup']:.3f} "
            f"| {m['review_primed.freeze_baseline']:.3f} | {m['review_primed.sensors']:.3f} "
            f"| {m['review_primed.conclude_exit']:.3f} | " + " | ".join(cells) + " |"
        )
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--unclaimed", type=int, default=1000, help="0: skip that workspace")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", type=Path, default=None, help="also write every figure here")
    args = parser.parse_args()
    cases = [(n, 0) for n in args.sizes] + ([(10, args.unclaimed)] if args.unclaimed else [])
    results = []
    with tempfile.TemporaryDirectory(prefix="bench-review-") as tmp:
        bench = Bench(Path(tmp), args.repeat)
        for claimed, unclaimed in cases:
            results.append(bench.measure(claimed, unclaimed))
            print(json.dumps(results[-1]), file=sys.stderr, flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    print(table(results))
    print()
    print(breakdown(results))


if __name__ == "__main__":
    main()
