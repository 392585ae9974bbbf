"""What the time limits cost on a small unit: the secret scan and the redaction of kept source.

Run by hand (not part of the test suite):

    .venv/bin/python bench/sensors/bench_limits.py [--repeat 20]

On ``examples/inventory-service`` (copied to a temp dir; its six claimed files):

- **secret-scan, cold**: ``run_sensors`` with the secret-scan alone and a fresh result
  cache, so every file is scanned;
- **kept-source redaction**: what a pass spends redacting its claimed files' text before
  keeping it (``scrub_many`` over the six texts, as ``keep_source`` calls it);
- **agent-text redaction, 2 KB**: one reviewer finding's text of about 2 KB (``scrub``).

Each figure is the fastest of ``--repeat`` runs (the machine is shared).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "compiler"))

from aidlc_review.sensors import run_sensors  # noqa: E402
from aidlc_review.sensors.manifests import load_sensor_manifests  # noqa: E402
from aidlc_review.sensors.redact import scrub, scrub_many  # noqa: E402

EXAMPLE = ROOT / "examples" / "inventory-service"
CLAIMED = [
    "src/inventory/__init__.py",
    "src/inventory/http.py",
    "src/inventory/ledger.py",
    "src/inventory/pricing.py",
    "tests/test_http.py",
    "tests/test_ledger.py",
]
AGENT_TEXT = (
    "The handler in `src/inventory/http.py` builds the response from `ledger.balance()` "
    "without checking that the SKU exists; an unknown SKU returns 200 with a zero balance. "
) * 12


def fastest(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    [manifest] = [m for m in load_sensor_manifests(ROOT) if m.id == "secret-scan"]
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp) / "ws"
        shutil.copytree(EXAMPLE, ws, ignore=shutil.ignore_patterns(".ruff_cache"))
        runs = iter(range(10_000))

        def scan() -> None:
            cache = Path(tmp) / f"cache-{next(runs)}"
            [result] = run_sensors(ws, CLAIMED, [manifest], cache_dir=cache)
            assert result.status == "passed", result.reason

        texts = [(ws / name).read_text() for name in CLAIMED]
        scan()  # warm: imports, plugins
        rows = {
            "secret-scan, cold (6 files)": fastest(scan, args.repeat),
            "kept-source redaction (6 files)": fastest(lambda: scrub_many(texts), args.repeat),
            "agent-text redaction (2 KB)": fastest(lambda: scrub(AGENT_TEXT), args.repeat),
        }
    for label, seconds in rows.items():
        print(f"| {label} | {seconds * 1000:.1f} |")


if __name__ == "__main__":
    main()
