"""Host-driven review: ``start`` freezes and briefs, the host's agent answers, ``submit`` concludes.

The request file keeps what ``start`` saw (the frozen fingerprint and the sensor
results), so ``submit`` judges exactly that candidate, and refuses when the
source moved in between.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aidlc_review.errors import InvalidInput
from aidlc_review.fsio import dump_json, write_atomic
from aidlc_review.review import engine
from aidlc_review.review.answer import validate_answer
from aidlc_review.review.api import ReviewOutcome, ReviewRequest, outcome_of
from aidlc_review.review.brief import reviewer_brief, write_brief
from aidlc_review.review.lock import unit_lock
from aidlc_review.review.paths import RecordPaths
from aidlc_review.review.store import load_document, save_document
from aidlc_review.review.unit import UnitContext
from aidlc_review.sensors.results import CheckFinding, CheckResult

HOST_AGENT = "host"
_REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]+$")


@dataclass(frozen=True)
class Started:
    request_id: str
    brief: Path
    attempt: int
    number: int
    budget: int


def start_review(request: ReviewRequest, progress: Callable[[str], None] | None = None) -> Started:
    say = progress or (lambda _: None)
    paths = RecordPaths.resolve(request.workspace, request.unit, request.record, request.manifest)
    ctx = UnitContext.load(paths, request.harness, request.mode)
    engine.read_manifest(ctx)
    with unit_lock(paths, say):
        doc = load_document(paths.findings) or engine.new_document(paths.unit)
        number = len(doc.attempt_passes()) + 1
        if number > ctx.budget:
            raise InvalidInput(
                f"{paths.display(paths.findings)}: attempt {doc.attempt} has used its "
                f"{ctx.budget} pass(es); decide at the gate (`review gate`)"
            )
        engine.ensure_baseline(ctx, doc.attempt)
        gathered = engine.gather(ctx, say)
        request_id = (
            f"{paths.unit or 'stage'}-a{doc.attempt}-p{number}-{gathered.frozen.fingerprint[7:15]}"
        )
        brief = write_brief(
            paths.brief("reviewer", doc.attempt, number), reviewer_brief(ctx, doc, gathered)
        )
        saved = {
            "request": request_id,
            "attempt": doc.attempt,
            "pass": number,
            "mode": ctx.mode,
            "harness": str(ctx.harness),
            "manifest_digest": gathered.frozen.manifest_digest,
            "files": gathered.frozen.files,
            "fingerprint": gathered.frozen.fingerprint,
            "results": [r.to_json() for r in gathered.results],
        }
        write_atomic(paths.requests / f"{request_id}.json", dump_json(saved))
    return Started(request_id, brief, doc.attempt, number, ctx.budget)


def submit_review(
    workspace: Path,
    unit: str | None,
    request_id: str,
    answer: Path,
    *,
    record: Path | None = None,
    manifest: Path | None = None,
    progress: Callable[[str], None] | None = None,
) -> ReviewOutcome:
    say = progress or (lambda _: None)
    paths = RecordPaths.resolve(workspace, unit, record, manifest)
    saved = _load_request(paths, request_id)
    ctx = UnitContext.load(paths, Path(saved["harness"]), saved["mode"])
    try:
        text = answer.read_bytes()
    except OSError as exc:
        raise InvalidInput(f"{answer}: cannot read the answer: {exc.strerror}") from None
    with unit_lock(paths, say):
        doc = load_document(paths.findings) or engine.new_document(paths.unit)
        if (doc.attempt, len(doc.attempt_passes()) + 1) != (saved["attempt"], saved["pass"]):
            raise InvalidInput(
                f"--request {request_id}: already submitted, or superseded; "
                "run `review start` again"
            )
        gathered = _regather(ctx, saved)
        checked = validate_answer(text, gathered.frozen.files)
        if checked.reason:
            say(f"answer rejected: {checked.reason}")
        baseline = engine.ensure_baseline(ctx, doc.attempt)
        doc = engine.conclude(
            ctx, doc, gathered, engine.reviewer_record(HOST_AGENT, checked), checked, baseline
        )
        save_document(paths, doc)
    return outcome_of(doc, paths)


def _load_request(paths: RecordPaths, request_id: str) -> dict[str, Any]:
    if not _REQUEST_ID.match(request_id):
        raise InvalidInput(f"--request {request_id!r}: not a request id printed by `review start`")
    path = paths.requests / f"{request_id}.json"
    if not path.is_file():
        raise InvalidInput(f"--request {request_id}: no such request for this unit")
    data: dict[str, Any] = json.loads(path.read_bytes())
    return data


def _regather(ctx: UnitContext, saved: dict[str, Any]) -> engine.Gathered:
    """What ``start`` saw, after checking the source is still those bytes."""
    from aidlc_review.review.freeze import freeze_unit

    manifest = engine.read_manifest(ctx)
    frozen = freeze_unit(manifest, ctx.paths.workspace)
    if frozen.fingerprint != saved["fingerprint"]:
        raise InvalidInput(
            f"--request {saved['request']}: the claimed source or the manifest "
            "changed since `review start`; run `review start` again"
        )
    results = [_result(r) for r in saved["results"]]
    return engine.Gathered(manifest, frozen, results)


def _result(data: dict[str, Any]) -> CheckResult:
    findings = tuple(CheckFinding.from_json(f) for f in data["findings"])
    return CheckResult(
        data["name"],
        data["status"],
        data["reason"],
        data["command"],
        data["duration_ms"],
        findings,
        data.get("tool"),
        data.get("tool_version"),
    )
