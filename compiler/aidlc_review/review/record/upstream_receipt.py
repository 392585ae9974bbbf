"""Upstream's own reviewer receipt for a pass, recorded with upstream's own tool.

Installed in an upstream project, code-review declares its reviewer, so upstream
refuses to approve the stage until every unit has a fresh ``REVIEW_COMPLETED``
from that reviewer. Only this runtime records it, and only for a READY verdict:
each pass logs ``REVIEW_REQUESTED`` (``aidlc-log.ts review ... --iteration N``), a
READY pass also logs ``REVIEW_COMPLETED`` (``--verdict READY``). A unit that ends
NOT-READY therefore cannot be approved upstream, which is this plugin's rule too;
Request Changes starts a new attempt. Without bun nothing is recorded (so nothing
can be approved by it) and the command to run is said.

A newer engine's logger hands the request one review slot (``reviewFile`` in its JSON,
``upstream.review_slot``) and reads the review from it at ``--verdict``: this runtime writes
code review's verdict and its open findings there, in the shape the engine reads, after
``code-review.md`` and ``code-review-findings.json`` are written and before the verdict
call. Where the slot is, the engine says; nothing else is written.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from aidlc_review.review.findings.verdict import READY
from aidlc_review.review.inputs.paths import STAGE
from aidlc_review.review.record.models import FindingsDocument
from aidlc_review.upstream import names
from aidlc_review.upstream.review_slot import (
    SlotFinding,
    SlotRefused,
    review_text,
    slot_from,
    write_slot,
)
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
            continue
        say(f"recorded upstream's review receipt: {' '.join(args[-2:])}")
        slot = slot_from(done.stdout) if "--verdict" not in args else None
        if slot is not None and not _fill_slot(engine.project, slot, reviewer, doc, number, say):
            return


def _fill_slot(
    project: Path, slot: str, reviewer: str, doc: FindingsDocument, iteration: int, say: Say
) -> bool:
    """Code review's verdict and open findings at the engine's review slot; False (said)
    when the slot cannot be written: then no verdict is recorded."""
    findings = [
        SlotFinding(
            f.id,
            f.severity,
            f"{f.path}:{f.location}" if f.location else f.path,
            f.finding,
            f.status,
        )
        for f in doc.open_findings()
    ]
    summary = f"code review's record: {STAGE}.md and its findings, {len(findings)} open"
    try:
        write_slot(project, slot, review_text(reviewer, iteration, doc.verdict, summary, findings))
    except (SlotRefused, OSError) as exc:
        say(f"upstream receipt NOT recorded (the engine's review slot: {exc})")
        return False
    say(f"wrote the engine's review at its slot: {slot}")
    return True
