"""The review runs in an upstream harness after ``install``, with Python-aware sensors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from aidlc_review.cli.main import main
from aidlc_review.harness.layout import PROJECT_ROOT

SHARED = PROJECT_ROOT.parent / "shared" / "aidlc-harness"
EXAMPLE = PROJECT_ROOT / "examples" / "inventory-service"


def test_review_in_an_installed_upstream_harness_lints_python(tmp_path, capsys):
    harness = tmp_path / "harness"
    shutil.copytree(SHARED, harness)
    for path in harness.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    assert main(["install", "--harness", str(harness)]) == 0
    workspace = tmp_path / "ws"
    shutil.copytree(EXAMPLE, workspace)
    capsys.readouterr()

    code = main(
        [
            "review",
            "run",
            "--workspace",
            str(workspace),
            "--unit",
            "u1-stock-ledger",
            "--harness",
            str(harness),
            "--json",
        ]
    )

    assert code == 1
    findings = json.loads(
        (
            workspace
            / "aidlc-docs/construction/u1-stock-ledger/code-review/code-review-findings.json"
        ).read_text()
    )
    checks = {c["name"]: c for c in findings["passes"][0]["checks"]}
    # the plugin's sensors are installed under their own ids, beside upstream's eslint/tsc ones
    assert checks["review-linter"]["status"] == "failed"
    assert checks["review-type-check"]["status"] == "passed"
    rules = {f.get("rule") for f in findings["passes"][0]["findings"]}
    assert "F401" in rules
    assert Path(harness / "sensors/aidlc-linter.md").read_text().startswith("---\nid: linter\n")
    assert findings["passes"][0]["verdict"] == "NOT-READY"  # blocking as the ledger says
