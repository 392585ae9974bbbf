"""Mutation testing of the pure rules: each module against its own spec tests (`make mutation`).

The modules and their spec tests are listed once, in pyproject.toml's ``[tool.mutmut]``
(``spec_tests``). mutmut 3 mutates a ``mutants/`` copy of the tree it runs in; other
engineers run tests in this checkout at the same time, so each module gets a copy of its own
under ``bench/.work/mutation/<module>/`` (the package as ``src/aidlc_review``, the
layout mutmut imports from, and tests/, of which only the module's spec tests run):
nothing here is mutated. A survivor listed in ``equivalent.toml`` (with why no test can
tell it apart) counts as equivalent. The table goes to README.md; the exit status is 1
when any module's score (killed + equivalent over all mutants) is below 90%.

    .venv/bin/python bench/mutation/run_mutation.py [--only grouping.py] [--no-write]
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import time
import tomllib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
WORK = ROOT / "bench" / ".work" / "mutation"
THRESHOLD = 90.0
RESULT_LINE = re.compile(r"^\s+(?P<name>\S+): (?P<status>[a-z ]+)$")
# a timeout is a kill: the mutant made the rule loop (mutmut's own reading)
KILLED = frozenset({"killed", "timeout"})
MARKER_START = "<!-- mutation table: written by run_mutation.py -->"
MARKER_END = "<!-- end of the mutation table -->"


@dataclass(frozen=True)
class Score:
    module: str
    statuses: dict[str, str]  # mutant name -> mutmut's status
    equivalent: frozenset[str]
    seconds: float
    left_out: dict[str, int]  # not-pure function -> its mutants, not in the score

    @property
    def killed(self) -> int:
        return sum(s in KILLED for s in self.statuses.values())

    @property
    def survivors(self) -> list[str]:
        return sorted(n for n, s in self.statuses.items() if s not in KILLED)

    @property
    def unexplained(self) -> list[str]:
        return [n for n in self.survivors if _short(n) not in self.equivalent]

    @property
    def score(self) -> float:
        total = len(self.statuses)
        explained = self.killed + len(self.survivors) - len(self.unexplained)
        return 100.0 * explained / total if total else 0.0


def _short(mutant: str) -> str:
    """``x_merge__mutmut_3`` of ``aidlc_review.review.findings.grouping.x_merge__mutmut_3``:
    the name without its module path, which a move of the module into a subfolder does not
    change."""
    return mutant.rsplit(".", 1)[-1]


@dataclass(frozen=True)
class Plan:
    specs: dict[str, list[str]]  # module -> its spec tests
    not_pure: frozenset[str]  # functions whose mutants are left out (I/O edges)
    config: dict[str, object]  # the rest of [tool.mutmut], for mutmut


def read_plan(pyproject: Path) -> Plan:
    """The modules with their spec tests, and the rest of ``[tool.mutmut]`` for each run."""
    config = dict(tomllib.loads(pyproject.read_text("utf-8"))["tool"]["mutmut"])
    specs = config.pop("spec_tests")
    not_pure = frozenset(config.pop("not_pure", []))
    for module, tests in specs.items():
        for path in (module, *tests):
            if not (ROOT / path).is_file():
                raise SystemExit(f"{pyproject}: [tool.mutmut] spec_tests: no file {path}")
    return Plan(specs, not_pure, config)


def function_of(mutant: str) -> str:
    """``filter_mode`` of ``....change_filter.x_filter_mode__mutmut_4`` (a method: its name)."""
    mangled = _short(mutant).partition("__mutmut_")[0]
    return mangled.rsplit("ǁ", 1)[-1].removeprefix("x_")


# folders beside the package that the spec tests read (the sensor manifests, the stages)
SHIPPED = ("sensors", "stages")


def read_equivalents(path: Path) -> dict[str, dict[str, str]]:
    """``{module file name: {mutant: why no test can tell it apart}}``."""
    return tomllib.loads(path.read_text("utf-8")) if path.exists() else {}


def stage(module: str, tests: list[str], config: dict[str, object]) -> Path:
    """A fresh copy for one module's run: ``src/aidlc_review``, its spec tests, its config."""
    where = WORK / Path(module).stem
    shutil.rmtree(where, ignore_errors=True)
    package = ROOT / "compiler" / "aidlc_review"
    shutil.copytree(package, where / "src" / "aidlc_review", ignore=_cached)
    # the whole tests/ (a spec may import a helper beside it); only ``tests`` are run
    shutil.copytree(ROOT / "tests", where / "tests", ignore=_cached)
    # the shipped definitions the descriptors are read from (``dirs.plugin_root`` is the copy)
    for folder in SHIPPED:
        shutil.copytree(ROOT / folder, where / folder, ignore=_cached)
    (where / "pyproject.toml").write_text(_config_text(module, tests, config), "utf-8")
    return where


def _cached(_folder: str, names: list[str]) -> list[str]:
    return [n for n in names if n == "__pycache__"]


def _config_text(module: str, tests: list[str], config: dict[str, object]) -> str:
    mutated = "src/" + module.removeprefix("compiler/")
    lines = [
        "[tool.mutmut]",
        'source_paths = ["src"]',
        f"only_mutate = [{_toml(mutated)}]",
        f"pytest_add_cli_args_test_selection = [{', '.join(_toml(t) for t in tests)}]",
        f"also_copy = {_toml(list(SHIPPED))}",
    ]
    lines += [f"{key} = {_toml(value)}" for key, value in config.items()]
    lines += ["", "[tool.pytest.ini_options]", 'addopts = "-q"']
    return "\n".join(lines) + "\n"


def _toml(value: object) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return str(value)


def mutate(where: Path, children: int) -> dict[str, str]:
    """Run mutmut in ``where``; every mutant's status by name."""
    mutmut = str(Path(sys.executable).with_name("mutmut"))
    log = where / "mutmut.log"
    # mutmut keeps each mutant's result as it goes; on this shared machine it has stopped
    # once mid-run without a word, and a second `mutmut run` resumes where it stopped
    for attempt in (1, 2):
        with log.open("a") as out:
            argv = [mutmut, "run", "--max-children", str(children)]
            ran = subprocess.run(argv, cwd=where, stdout=out, stderr=out)
        if ran.returncode == 0:
            break
        print(f"  mutmut stopped (exit {ran.returncode}, run {attempt}): see {log}")
    else:
        raise SystemExit(f"mutmut failed in {where} (exit {ran.returncode}): see {log}")
    listed = subprocess.run(
        [mutmut, "results", "--all", "true"], cwd=where, capture_output=True, text=True, check=True
    )
    statuses = {}
    for line in listed.stdout.splitlines():
        if found := RESULT_LINE.match(line):
            statuses[found["name"]] = found["status"]
    if not statuses:
        raise SystemExit(f"mutmut made no mutants in {where}: see {log}")
    return statuses


def show(where: Path, mutant: str) -> str:
    """The mutant's diff, for a survivor named in the report."""
    mutmut = str(Path(sys.executable).with_name("mutmut"))
    shown = subprocess.run([mutmut, "show", mutant], cwd=where, capture_output=True, text=True)
    return shown.stdout.strip()


def render(scores: list[Score]) -> str:
    rows = [
        "| module | mutants | killed | survived | equivalent | score |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for s in scores:
        survived = len(s.unexplained)
        equivalent = len(s.survivors) - survived
        rows.append(
            f"| `{s.module}` | {len(s.statuses)} | {s.killed} | {survived} | {equivalent} "
            f"| {s.score:.1f}% |"
        )
    total = sum(len(s.statuses) for s in scores)
    seconds = sum(s.seconds for s in scores)
    for s in scores:
        if s.left_out:
            edges = ", ".join(f"`{name}` {n}" for name, n in sorted(s.left_out.items()))
            rows.append("")
            rows.append(f"Left out of `{Path(s.module).name}` (I/O edges, `not_pure`): {edges}.")
    rows.append("")
    rows.append(f"{total} mutants, {seconds:.0f} s on this machine (mutmut, 2 children).")
    return "\n".join(rows)


def write_table(readme: Path, table: str) -> None:
    """Replace the table between its markers, keeping the prose around it."""
    text = readme.read_text("utf-8")
    head, _, rest = text.partition(MARKER_START)
    _, _, tail = rest.partition(MARKER_END)
    readme.write_text(f"{head}{MARKER_START}\n{table}\n{MARKER_END}{tail}", "utf-8")


def run_module(module: str, plan: Plan, args: argparse.Namespace) -> Score:
    started = time.monotonic()
    where = stage(module, plan.specs[module], plan.config)
    every = mutate(where, args.children)
    statuses = {n: s for n, s in every.items() if function_of(n) not in plan.not_pure}
    left_out = Counter(function_of(n) for n in every if n not in statuses)
    equivalent = read_equivalents(HERE / "equivalent.toml").get(Path(module).name, {})
    seconds = time.monotonic() - started
    score = Score(module, statuses, frozenset(equivalent), seconds, dict(left_out))
    print(f"{module}: {len(statuses)} mutants, {score.score:.1f}% ({score.seconds:.0f} s)")
    for mutant in score.unexplained:
        print(f"  survived: {show(where, mutant)}\n")
    stale = sorted(set(equivalent) - {_short(n) for n in score.survivors})
    for mutant in stale:
        print(f"  equivalent.toml lists {mutant}, which is no survivor now: remove it")
    return score


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", help="a module's file name, e.g. verdict.py")
    parser.add_argument("--children", type=int, default=2)
    parser.add_argument("--no-write", action="store_true", help="leave README.md as it is")
    args = parser.parse_args(argv)
    plan = read_plan(ROOT / "pyproject.toml")
    chosen = [m for m in plan.specs if not args.only or Path(m).name in args.only]
    scores = [run_module(m, plan, args) for m in chosen]
    table = render(scores)
    print(table)
    if not args.no_write and not args.only:
        write_table(HERE / "README.md", table)
    low = [s.module for s in scores if s.score < THRESHOLD]
    if low:
        print(f"below {THRESHOLD:.0f}%: {', '.join(low)}", file=sys.stderr)
    return 1 if low else 0


if __name__ == "__main__":
    sys.exit(main())
