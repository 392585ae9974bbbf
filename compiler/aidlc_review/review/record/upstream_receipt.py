"""Upstream's own reviewer receipt for a pass, recorded with upstream's own tool.

Installed in an upstream project, code-review declares its reviewer, so upstream
refuses to approve the stage until every unit has a fresh ``REVIEW_COMPLETED``
from that reviewer. Only this runtime records it, and only for a READY verdict:
each pass logs ``REVIEW_REQUESTED`` (``aidlc-log.ts review ... --iteration N``), a
READY pass also logs ``REVIEW_COMPLETED`` (``--verdict READY``). A unit that ends
NOT-READY therefore cannot be approved upstream, which is this plugin's rule too;
Request Changes starts a new attempt. Without bun nothing is recorded (so nothing
can be approved by it) and the command to run is said.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

from aidlc_review.review.findings.verdict import READY
from aidlc_review.review.inputs.paths import STAGE
from aidlc_review.review.record.models import FindingsDocument
from aidlc_review.upstream.tools import Engine, find_bun

LOG_TOOL = "aidlc-log.ts"
Say = Callable[[str], None]


def record_upstream_review(
    harness: Path, reviewer: str, doc: FindingsDocument, unit: str | None, say: Say
) -> None:
    engine = Engine.of(harness)
    if not (engine.project / engine.tool(LOG_TOOL)).is_file():
        return
    number = len(doc.attempt_passes())
    argv = ["review", "--stage", STAGE, *(["--unit", unit] if unit else []), "--reviewer", reviewer]
    argv += ["--iteration", str(number)]
    runs = [argv] + ([[*argv, "--verdict", READY]] if doc.verdict == READY else [])
    bun = find_bun()
    for args in runs:
        shown = f"bun {engine.tool(LOG_TOOL)} {' '.join(args)}"
        if bun is None:
            say(f"upstream receipt NOT recorded (bun not found); run in {engine.project}: {shown}")
            continue
        done = subprocess.run(
            [bun, engine.tool(LOG_TOOL), *args],
            cwd=engine.project,
            capture_output=True,
            text=True,
            timeout=120,
        )
        if done.returncode != 0:
            why = done.stderr.strip()
            say(f"upstream receipt NOT recorded ({shown} exited {done.returncode}): {why}")
        else:
            say(f"recorded upstream's review receipt: {' '.join(args[-2:])}")
