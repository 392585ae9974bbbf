"""Run every benchmark in turn (minutes). Figures are copied into each bench/*/README.md by hand.

.venv/bin/python bench/run_all.py
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCHES = (
    ("compile", ["compile/bench_compile.py", "--runs", "15"]),
    ("install", ["install/bench_install.py", "--runs", "9"]),
    ("sensors", ["sensors/bench_sensors.py", "--sizes", "10", "100", "1000", "--repeat", "3"]),
    ("mypy seed", ["sensors/bench_mypy_seed.py", "--sizes", "10", "100", "1000", "--repeat", "3"]),
    ("review", ["review/bench_review.py"]),
    ("review npm", ["review/bench_npm_unit.py", "--repeat", "3"]),
    ("verify", ["review/bench_verify.py"]),
    ("bolt", ["bolt/bench_bolt.py", "--cost", "1.0", "--repeat", "3"]),
    ("suite", ["suite/bench_suite.py"]),
    ("judgment", ["judgment/bench_judgment.py"]),
    ("judgment npm", ["judgment/bench_npm.py"]),
)


def main() -> int:
    failed = []
    for name, argv in BENCHES:
        print(f"\n## {name}\n", flush=True)
        if subprocess.run([sys.executable, str(HERE / argv[0]), *argv[1:]]).returncode:
            failed.append(name)
    if failed:
        print(f"\nfailed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
