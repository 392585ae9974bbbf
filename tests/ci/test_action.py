"""The composite action's scripts, run for real on a fixture workspace."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import sys
from pathlib import Path

import pytest

from tests.ci.action_runner import ActionRun, load_action, run_action, step_wanted
from tests.ci.units import CLAIMS, three_unit_workspace
from tests.shared_builds import build_once, session_root, state_home

UNITS = "u1-ledger u2-pricing"


def runner_env(tmp_path: Path) -> dict[str, str]:
    summary = tmp_path / "step-summary.md"
    summary.write_text("")
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    temp = tmp_path / "runner-temp"
    return {
        **os.environ,
        "PATH": path,
        "GITHUB_STEP_SUMMARY": str(summary),
        "RUNNER_TEMP": str(temp),
    }


@dataclasses.dataclass(frozen=True)
class Reviewed:
    root: Path  # repo/ (the workspace), state/ (its review state), step-summary.md, run.json

    @property
    def workspace(self) -> Path:
        return self.root / "repo"

    @property
    def run(self) -> ActionRun:
        return ActionRun(**json.loads((self.root / "run.json").read_text()))


def review_with_the_action(root: Path) -> None:
    workspace = three_unit_workspace(root / "repo")
    run = run_action({"units": UNITS, "reviewer": "builtin"}, workspace, runner_env(root))
    (root / "run.json").write_text(json.dumps(dataclasses.asdict(run)))


@pytest.fixture(scope="session")
def reviewed_once(tmp_path_factory) -> Reviewed:
    """The action run once with a reviewer on two of the three units, for every worker that
    asks (built under a lock with its own cache and state dirs; the tests only read it)."""
    root = build_once(session_root(tmp_path_factory) / "ci-action", review_with_the_action)
    return Reviewed(root)


def test_review_verify_summary_and_sarif_for_the_given_units(reviewed_once):
    run, workspace = reviewed_once.run, reviewed_once.workspace
    verdict = run.outputs["summary"]["verdict"]
    assert verdict in ("READY", "NOT-READY")
    assert (run.failed is None) == (verdict == "READY")  # the last step fails a NOT-READY gate
    # safe on a private repository without Advanced Security: no upload unless asked
    assert "github/codeql-action/upload-sarif@v3" not in run.used
    summary = (reviewed_once.root / "step-summary.md").read_text()
    assert summary.startswith(f"## Code review: {verdict}\n")
    assert "| u1-ledger | " in summary and "| u2-pricing | " in summary
    assert "u3-http" not in summary  # only the units it was given
    sarif = json.loads((workspace / "aidlc-review.sarif").read_text())
    assert [r["automationDetails"]["id"] for r in sarif["runs"]] == [
        "code-review/u1-ledger/attempt-1",
        "code-review/u2-pricing/attempt-1",
    ]
    # the annotations are on by default: one per SARIF result (both place every finding)
    shown = [line for line in run.logs["summary"].splitlines() if line.startswith("::")]
    located = [line for line in shown if " file=" in line]
    assert len(located) == sum(len(r["results"]) for r in sarif["runs"])
    assert all(re.match(r"::(error|warning|notice) ", line) for line in shown)
    if verdict == "NOT-READY":
        assert shown


def test_the_sarif_upload_runs_only_when_asked():
    (upload,) = [s for s in load_action()["runs"]["steps"] if "upload-sarif" in s.get("uses", "")]
    defaults = {
        name: str(spec.get("default", "")) for name, spec in load_action()["inputs"].items()
    }
    assert defaults["upload-sarif"] == "false" and defaults["annotations"] == "true"
    assert not step_wanted(ActionRun(defaults), upload["if"])
    assert step_wanted(ActionRun({**defaults, "upload-sarif": "true"}), upload["if"])


def test_verify_only_fails_on_a_stale_review(reviewed_once, tmp_path):
    """From a copy of the workspace the action reviewed as it would be committed (the run's
    SARIF output left out), and of the state dir whose key sealed that review into this
    test's own (only that key opens the seals)."""
    workspace = tmp_path / "repo"
    shutil.copytree(reviewed_once.workspace, workspace, symlinks=True)
    state = state_home(reviewed_once.root)
    shutil.copytree(state, os.environ["XDG_STATE_HOME"], dirs_exist_ok=True)
    (workspace / "aidlc-review.sarif").unlink()
    env = runner_env(tmp_path)
    pricing = workspace / CLAIMS["u2-pricing"][0]
    pricing.write_text(pricing.read_text() + "\nLIMIT = 3\n")
    run = run_action({"units": "u2-pricing"}, workspace, env)
    assert run.outputs["review"]["status"] == "1"
    assert "review: attempt" not in run.logs["review"]  # verified only, not reviewed again
    stale = "stale: src/inventory/pricing.py: claimed file changed since the receipt"
    assert stale in run.logs["review"]
    assert run.outputs["summary"]["verdict"] == "NOT-READY"
    assert run.failed is not None and "Fail on NOT-READY" in run.failed
