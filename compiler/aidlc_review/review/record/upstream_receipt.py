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

from collections.abc import Callable
from pathlib import Path

from aidlc_review.review.findings.verdict import READY
from aidlc_review.review.inputs.paths import STAGE
from aidlc_review.review.record.models import FindingsDocument
from aidlc_review.upstream import names
from aidlc_review.upstream.tools import Engine, find_bun, said

LOG_TOOL = names.LOG_TOOL
TIMEOUT = 120
Say = Callable[[str], None]


def record_upstream_review(
    harness: Path, reviewer: str, doc: FindingsDocument, unit: str | None, say: Say
) -> None:
    engine = Engine.of(harness)
    if not engine.has(LOG_TOOL):
        return
    number = len(doc.attempt_passes())
    argv = ["review", "--stage", STAGE, *(["--unit", unit] if unit else []), "--reviewer", reviewer]
    argv += ["--iteration", str(number)]
    runs = [argv] + ([[*argv, "--verdict", READY]] if doc.verdict == READY else [])
    bun = find_bun()
    for args in runs:
        command = engine.argv(LOG_TOOL, *args)
        if bun is None:
            shown = " ".join(command)
            say(f"upstream receipt NOT recorded (bun not found); run in {engine.project}: {shown}")
            continue
        done = engine.call(command, bun, timeout=TIMEOUT)
        if done.returncode != 0:
            shown = f"{' '.join(command)} exited {done.returncode}"
            say(f"upstream receipt NOT recorded ({shown}): {said(done)}")
        else:
            say(f"recorded upstream's review receipt: {' '.join(args[-2:])}")
