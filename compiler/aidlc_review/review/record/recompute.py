"""The deterministic layer run again at a gate: the sensors on the claimed bytes as they are.

A findings document says what the sensors found when it was written; a gate does not take
its word for it. The unit's sensors run again on exactly the files the receipt binds
(their per-file results are cached by content, so this costs little right after a pass),
and the recorded ledger is merged with what they report now, as a pass would merge it:
a sensor finding the record dropped or understated comes back open, the reviewer's
findings and the runtime's own (unclaimed changes, an unavailable reviewer) stay as
recorded. What the record does not hold open but the sensors do is named, so a forged
document is refused for a reason a person can check.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from aidlc_review.review.findings.change_filter import Change, classify
from aidlc_review.review.findings.ledger import merge
from aidlc_review.review.findings.observation import Observation
from aidlc_review.review.inputs.paths import RecordPaths
from aidlc_review.review.record.models import Finding, FindingsDocument, Receipt
from aidlc_review.sensors.results import CheckResult

# Its subject is the findings document itself, which ``review.record.consistency`` checks.
SELF_CHECK = "findings-schema"
# Runners that run the project's own tests: a freshness check (``review verify``, the
# pre-commit hook on every commit) leaves them to the approving gates (``--ready``).
TEST_RUNNERS = frozenset({"coverage"})


@dataclass(frozen=True)
class Recomputed:
    findings: list[Finding]  # the recorded ledger merged with the sensors' findings now
    understated: list[str]  # ``path: ...`` for each blocking finding the record does not hold
    not_run: list[str] = field(default_factory=list)  # ``check: why`` for sensors skipped here
    deferred: list[str] = field(default_factory=list)  # sensors left to the approving gates


def recompute_findings(
    paths: RecordPaths,
    doc: FindingsDocument,
    receipt: Receipt,
    harness: Path | None,
    base_revision: str | None,
    thorough: bool = True,
    change: Change | None = None,
) -> Recomputed:
    """``thorough=False``: the sensors that run the project's tests are not run again (a
    freshness check); their recorded findings stand and ``deferred`` says so. ``change``:
    what the unit changed since its given base (``review.findings.change_filter``)."""
    from aidlc_review.review.inputs.unit import UnitContext
    from aidlc_review.review.record.sensor_replay import replayed_or_run
    from aidlc_review.review.run.engine import sensor_observations
    from aidlc_review.review.source.git_drift import resolve_base

    ctx = UnitContext.load(paths, harness, "gated", base_revision)
    base = ctx.configured_base()  # the sealed baseline's (proof._base), else configured
    settings = ctx.sensor_settings(at=resolve_base(paths.workspace, base))  # as in the pass
    settings.pop("in_force", None)
    if base:
        settings["base_revision"] = base
    files = sorted(receipt.files)
    later = {
        m.id
        for m in ctx.sensors
        if not thorough and m.runner is not None and m.runner.name in TEST_RUNNERS
    }
    sensors = [m for m in ctx.sensors if m.id != SELF_CHECK and m.id not in later]
    # right after a review: the pass's own results for these very inputs, if it kept them
    results = replayed_or_run(paths, ctx.harness, files, sensors, settings)
    last = doc.attempt_passes()[-1]
    skipped = _could_not_run(results, {c.name: c.status for c in last.checks})
    seen = sensor_observations([r for r in results if r.name not in skipped])
    kept = {*skipped, *later, SELF_CHECK}
    again = merge_recomputed(
        last.findings, seen, doc.attempt, last.number, set(files), kept, change
    )
    not_run = [
        f"{name}: could not run here ({why}); it ran in the pass: its recorded findings stand"
        for name, why in sorted(skipped.items())
    ]
    deferred = [
        f"{name}: runs the project's tests, so only `review verify --ready` and the gates run "
        "it again; its recorded findings stand"
        for name in sorted(later)
    ]
    return Recomputed(again.findings, again.understated, not_run, deferred)


def merge_recomputed(
    recorded: list[Finding],
    seen: list[Observation],
    attempt: int,
    number: int,
    reviewed: set[str],
    not_run: Collection[str] = (),
    change: Change | None = None,
) -> Recomputed:
    """The pure half: ``recorded`` merged with this run's sensor observations ``seen``.

    What nothing here re-examined stands as recorded: the runtime's findings (unclaimed
    changes, an unavailable reviewer) and those of sensors in ``not_run`` (skipped here, a
    tool missing: their silence proves nothing). No reviewer runs here either, so every
    open reviewer finding stays open and comes back marked ``not_re_examined``, as in a
    pass whose reviewer did not account for it (``review.findings.ledger``). Which
    findings are pre-existing is derived from ``change`` on both sides, never read from
    the record."""
    changed = change.lines if change else None
    merged = merge(recorded, seen, attempt, number, reviewed, {}, changed)
    merged = classify(merged, change)
    before = {f.id: f for f in classify(recorded, change)}
    merged = [
        before[f.id] if f.id in before and _stands(before[f.id], not_run) else f for f in merged
    ]
    understated = [
        f"{f.path or '(unit)'}: recomputed now, {f.check or f.source} reports {f.rule or ''}"
        f" ({f.severity}): {f.finding}; the record does not hold it open"
        for f in merged
        if f.blocking and not (f.id in before and before[f.id].blocking)
    ]
    return Recomputed(merged, understated)


def _could_not_run(results: list[CheckResult], recorded: dict[str, str]) -> dict[str, str]:
    """``{sensor: why}`` for sensors that ran in the pass but are skipped or broken here (a
    tool missing from this environment, a test runner the hook's interpreter lacks): their
    silence or their error here proves nothing either way about the bytes. One that errored
    in the pass counts too: its "could not verify" finding blocked then and still does."""
    ran = ("passed", "failed", "error")
    return {
        r.name: (r.reason or r.status).splitlines()[0]
        for r in results
        if r.status in ("skipped", "error") and recorded.get(r.name) in ran
    }


def _stands(finding: Finding, not_run: Collection[str]) -> bool:
    if finding.source == "runtime":
        return True
    checks = set(finding.checks or ([finding.check] if finding.check else []))
    return finding.source == "sensor" and bool(checks) and checks <= set(not_run)
