"""How long the test suite takes, against the suite as it was when issue #11 was filed.

Run: .venv/bin/python bench/suite/bench_suite.py [--filed-at COMMIT] [--skip-then]

Issue #11 asks that the suite be "no slower than today (about 2 minutes on 2 cores)". Its
"today" is commit ``FILED_AT``. Since then later issues (#9, #10, #12, #13) added whole
test files: engine walks, kill trials, packaging, pre-commit, the CI action. So the script
measures three runs on this machine, one after the other:

1. **then**: a clean clone of ``FILED_AT`` (with ``../shared`` beside it), set up and tested
   with that commit's own ``make test``: the suite #11 was measured against.
2. **same files now**: this checkout's ``make test`` command on the test files that existed
   at ``FILED_AT`` (later issues added tests to some of them) plus the files #11 itself
   added (``ISSUE_11_FILES``, among them the 228-mutation differential test).
3. **whole suite now**: this checkout's ``make test``.

Prints a Markdown table: tests passed, pytest's own time and the whole command's wall time.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
FILED_AT = "452c2a0"  # the last commit before work on #11 began
ISSUE_11_FILES = (
    "tests/compiler/test_differential.py",
    "tests/compiler/test_rules.py",
    "tests/review/findings/test_ledger_fingerprint.py",
    "tests/test_code_shape.py",
    "tests/test_typed_load.py",
)
PASSED = re.compile(r"(\d+) passed.* in ([\d.]+)s")


@dataclass(frozen=True)
class Timed:
    passed: int
    pytest_seconds: float
    wall_seconds: float


def must(argv: list[str], cwd: Path) -> str:
    """``argv``'s output; on a failure, exit naming the command and showing its last lines."""
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).splitlines()[-20:])
        raise SystemExit(f"{' '.join(argv)} in {cwd} failed ({done.returncode}):\n{tail}")
    return done.stdout


def timed(argv: list[str], cwd: Path) -> Timed:
    start = time.perf_counter()
    out = must(argv, cwd)
    wall = time.perf_counter() - start
    found = PASSED.findall(out)
    if not found:
        raise SystemExit(f"{' '.join(argv)} in {cwd}: pytest reported no passed tests")
    passed, seconds = found[-1]
    return Timed(int(passed), float(seconds), wall)


def then(commit: str, work: Path) -> Timed:
    """The suite at ``commit``, cloned clean beside a link to ``../shared``."""
    (work / "shared").symlink_to(SHARED, target_is_directory=True)
    repo = work / "repo"
    must(["git", "clone", "-q", str(ROOT), str(repo)], work)
    must(["git", "checkout", "-q", commit], repo)
    must(["make", "setup"], repo)
    return timed(["make", "test"], repo)


def test_files_at(commit: str) -> list[str]:
    listed = must(["git", "ls-tree", "-r", "--name-only", commit, "--", "tests"], ROOT).split()
    return sorted(p for p in listed if re.search(r"(^|/)test_[^/]*\.py$", p))


def where_now(commit: str, files: list[str]) -> list[str]:
    """Each of ``files`` (test files at ``commit``) at its path now: where git's rename
    detection says it went (the tests have since been sorted into folders that mirror the
    package), else the one test file of the same name. One that is gone is an error."""
    listed = must(["git", "diff", "--name-status", "-M", commit, "HEAD", "--", "tests"], ROOT)
    renamed = {}
    for line in listed.splitlines():
        status, *paths = line.split("\t")
        if status.startswith("R"):
            renamed[paths[0]] = paths[1]
    found, gone = [], []
    for old in files:
        new = renamed.get(old, old)
        if not (ROOT / new).is_file():
            same_name = sorted(
                str(p.relative_to(ROOT)) for p in ROOT.glob(f"tests/**/{Path(old).name}")
            )
            new = same_name[0] if len(same_name) == 1 else ""
        (found if new else gone).append(new or old)
    if gone:
        raise SystemExit(f"no longer in tests/: {', '.join(gone)}")
    return found


def now(files: list[str] | None) -> Timed:
    """This checkout's ``make test``, on ``files`` or on the whole suite."""
    if files is None:
        return timed(["make", "test"], ROOT)
    return timed(["make", "test", f"TESTS={' '.join(files)}"], ROOT)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--filed-at", default=FILED_AT)
    parser.add_argument("--skip-then", action="store_true", help="only the two runs of now")
    options = parser.parse_args()
    rows: list[tuple[str, Timed]] = []
    if not options.skip_then:
        work = Path(tempfile.mkdtemp(prefix="bench-suite-"))
        try:
            rows.append((f"then: {options.filed_at}'s whole suite", then(options.filed_at, work)))
        finally:
            shutil.rmtree(work, ignore_errors=True)
    same = where_now(options.filed_at, [*test_files_at(options.filed_at), *ISSUE_11_FILES])
    rows.append((f"now: {options.filed_at}'s test files + #11's", now(same)))
    rows.append(("now: whole suite", now(None)))
    print("| run | tests passed | pytest (s) | command wall (s) |")
    print("|---|---:|---:|---:|")
    for name, row in rows:
        print(f"| {name} | {row.passed} | {row.pytest_seconds:.1f} | {row.wall_seconds:.1f} |")


if __name__ == "__main__":
    main()
