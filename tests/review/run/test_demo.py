"""The README's first command: the bundled example, reviewed by the built-in reviewer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
UNIT_DIR = "inventory-service/aidlc-docs/construction/u1-stock-ledger/code-review"


def test_the_demo_reviews_a_copy_of_the_example_and_shows_where_the_report_is(tmp_path):
    env = {
        **os.environ,
        "AIDLC_DEMO_DIR": str(tmp_path),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    }
    done = subprocess.run(
        ["bash", str(EXAMPLES / "run-demo.sh")],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    report = tmp_path / UNIT_DIR / "code-review.md"
    assert f"report:   {report}\n" in done.stdout
    assert "**Verdict: NOT-READY**" in report.read_text()
    doc = json.loads((tmp_path / UNIT_DIR / "code-review-findings.json").read_text())
    found = {(f["check"], f["severity"], f["path"]) for f in doc["passes"][0]["findings"]}
    assert found == {
        ("coverage", "major", ""),
        ("coverage", "minor", "src/inventory/pricing.py"),
        ("formatter", "minor", "src/inventory/http.py"),
        ("linter", "major", "src/inventory/http.py"),
    }
    assert not list(EXAMPLES.rglob(".aidlc-engine")) and not list(EXAMPLES.rglob("code-review"))
    # the suggested next command runs as printed, from a shell without the venv on PATH
    (suggested,) = [line for line in done.stdout.splitlines() if line.startswith("try next: ")]
    shown = subprocess.run(
        ["bash", "-c", suggested.removeprefix("try next: ")],
        env={**os.environ, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert shown.returncode == 0, shown.stderr  # the review is fresh: nothing changed since
