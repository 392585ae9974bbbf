"""A fixed-cost scripted agent for the Bolt benchmark: every call takes COST seconds.

The developer writes ``src/<unit>.txt`` and its source manifest; the reviewer answers READY.
Usage: fixed_agent.py COST
"""

import json
import os
import sys
import time
from pathlib import Path

cost = float(sys.argv[1])
sys.stdin.read()
time.sleep(cost)
unit = os.environ["AIDLC_UNIT"]
if os.environ["AIDLC_ROLE"] == "developer":
    workspace = Path(os.environ["AIDLC_WORKSPACE"])
    (workspace / "src").mkdir(exist_ok=True)
    (workspace / "src" / f"{unit}.txt").write_text(f"unit {unit}\n")
    manifest = (
        Path(os.environ["AIDLC_RECORD"])
        / "construction"
        / unit
        / "code-generation"
        / "source-manifest.json"
    )
    manifest.parent.mkdir(parents=True, exist_ok=True)
    manifest.write_text(
        json.dumps(
            {
                "stage": "code-generation",
                "unit": unit,
                "version": 1,
                "writes": [{"path": f"src/{unit}.txt"}],
            }
        )
    )
elif os.environ["AIDLC_ROLE"] == "reviewer":
    print(json.dumps({"verdict": "READY", "summary": "Fixed-cost review.", "findings": []}))
