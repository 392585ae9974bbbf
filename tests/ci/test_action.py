"""The composite action's scripts, run for real on a fixture workspace."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from tests.ci.action_runner import run_action
from tests.ci.units import CLAIMS, three_unit_workspace


def runner_env(tmp_path: Path) -> dict[str, str]:
    summary = tmp_path / "step-summary.md"
    summary.write_text("")
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    return {**os.environ, "PATH": path, "GITHUB_STEP_SUMMARY": str(summary)}


def test_review_verify_summary_and_sarif_for_the_given_units(tmp_path):
    workspace = three_unit_workspace(tmp_path / "repo")
    env = runner_env(tmp_path)
    units = "u1-ledger u2-pricing"
    run = run_action({"units": units, "reviewer": "builtin"}, workspace, env)
    verdict = run.outputs["summary"]["verdict"]
    assert verdict in ("READY", "NOT-READY")
    assert (run.failed is None) == (verdict == "READY")  # the last step fails a NOT-READY gate
    assert "github/codeql-action/upload-sarif@v3" in run.used
    summary = Path(env["GITHUB_STEP_SUMMARY"]).read_text()
    assert summary.startswith(f"## Code review: {verdict}\n")
    assert "| u1-ledger | " in summary and "| u2-pricing | " in summary
    assert "u3-http" not in summary  # only the units it was given
    sarif = json.loads((workspace / "aidlc-review.sarif").read_text())
    assert [r["automationDetails"]["id"] for r in sarif["runs"]] == [
        "code-review/u1-ledger/attempt-1",
        "code-review/u2-pricing/attempt-1",
    ]


def test_verify_only_fails_on_a_stale_review(tmp_path):
    workspace = three_unit_workspace(tmp_path / "repo")
    env = runner_env(tmp_path)
    run_action({"units": "u2-pricing", "reviewer": "builtin"}, workspace, env)
    pricing = workspace / CLAIMS["u2-pricing"][0]
    pricing.write_text(pricing.read_text() + "\nLIMIT = 3\n")
    run = run_action({"units": "u2-pricing"}, workspace, env)
    assert run.outputs["review"]["status"] == "1"
    assert run.outputs["summary"]["verdict"] == "NOT-READY"
    assert run.failed is not None and "Fail on NOT-READY" in run.failed
