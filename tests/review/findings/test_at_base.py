"""What the sensors report on the base's bytes: the proof a finding is pre-existing."""

from __future__ import annotations

import subprocess
from pathlib import Path

from aidlc_review.review.findings.at_base import findings_at_base
from aidlc_review.review.findings.grouping import group_hits
from aidlc_review.review.inputs.paths import RecordPaths
from aidlc_review.review.inputs.unit import UnitContext
from aidlc_review.review.run.engine import sensor_observations
from aidlc_review.sensors import run_sensors
from tests.review.workspace import UNIT, make_workspace

APP = "src/orders/app.py"
OLD = '"""Orders."""\n\nimport os\n'


def prints_of(ctx: UnitContext, files: list[str]) -> frozenset[str]:
    """The grouped fingerprints a pass records for the workspace as it is now."""
    results = run_sensors(ctx.paths.workspace, files, ctx.sensors)
    return frozenset(o.fingerprint for o in group_hits(sensor_observations(results)))


def test_the_bases_findings_are_those_of_the_base_bytes_not_the_workspaces(tmp_path: Path):
    ws = make_workspace(tmp_path / "ws", {APP: OLD})
    base = subprocess.run(
        ["git", "-C", str(ws), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    ctx = UnitContext.load(RecordPaths.resolve(ws, UNIT), None, "gated")
    at_base = prints_of(ctx, [APP])
    (ws / APP).write_text(OLD + "\n\ndef f() -> int:\n    return missing\n")

    found = findings_at_base(ctx, base, [APP])

    assert found == at_base and found  # the F401 the base holds, not the F821 added since
    assert not prints_of(ctx, [APP]) <= found
    assert findings_at_base(ctx, base, [APP]) == found  # again, from the cache


def test_a_base_git_cannot_export_proves_nothing(tmp_path: Path):
    ws = make_workspace(tmp_path / "ws", {APP: OLD})
    ctx = UnitContext.load(RecordPaths.resolve(ws, UNIT), None, "gated")
    assert findings_at_base(ctx, "0" * 40, [APP]) is None


def test_a_suppression_the_base_holds_is_the_bases_own_when_the_base_is_judged(tmp_path: Path):
    # judged in an export of the base, a `# noqa` the base itself holds must read as standing
    # at the base (honoured), as it does in the workspace: were it read as added, the base
    # would report what it hides, and a finding it really holds would not match the change's
    held = '"""Orders."""\n\nimport os  # noqa: F401\nimport sys\n'
    ws = make_workspace(tmp_path / "ws", {APP: held})
    base = subprocess.run(
        ["git", "-C", str(ws), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    ctx = UnitContext.load(RecordPaths.resolve(ws, UNIT), None, "gated")

    assert findings_at_base(ctx, base, [APP]) == prints_of(ctx, [APP])
