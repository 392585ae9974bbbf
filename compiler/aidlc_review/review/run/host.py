"""Host-driven review: ``start`` freezes and briefs, the host's agent answers, ``submit`` concludes.

The request file keeps what ``start`` saw (the frozen fingerprint, the mode, the
harness), so ``submit`` refuses when the claimed source or the manifest moved in
between. The host can edit that file, so the request id printed by ``start``
binds the fingerprint, mode and harness, and ``submit`` never uses the sensor
results saved in it: it runs the sensors again on the frozen files (the per-file
cache makes that cheap). The answer file may hold what an agent CLI printed: the same
shapes as a command reviewer's stdout (``review.agents.envelope``); a file in none of them is
bad input (exit 2), nothing recorded, so the host can submit again.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from aidlc_review.errors import EXIT_FAILED, AidlcError, InvalidInput
from aidlc_review.fsio import dump_json, write_atomic
from aidlc_review.review.agents.adapters import scrub_line
from aidlc_review.review.agents.answer import validate_answer
from aidlc_review.review.agents.brief import reviewer_brief, write_brief
from aidlc_review.review.agents.envelope import Unwrapped, unwrap
from aidlc_review.review.agents.text import scrub_check
from aidlc_review.review.inputs.intent import refuse_out_of_order
from aidlc_review.review.inputs.paths import RecordPaths
from aidlc_review.review.inputs.unit import UnitContext
from aidlc_review.review.record.store import load_unit_document, save_document
from aidlc_review.review.record.upstream_receipt import record_upstream_review
from aidlc_review.review.run import engine
from aidlc_review.review.run.api import (
    ReviewOutcome,
    ReviewRequest,
    outcome_of,
    own_history,
    redo_unverified,
    to_redo,
    without_last_pass,
)
from aidlc_review.review.run.lock import unit_lock
from aidlc_review.review.source.freeze import Frozen, freeze_unit
from aidlc_review.typed_load import load_json

HOST_AGENT = "host"


class StaleRequest(AidlcError):
    """The source moved between ``start`` and ``submit``: a refusal (exit 1), nothing recorded."""

    exit_code = EXIT_FAILED


_REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]+$")


class SavedRequest(BaseModel):
    """``requests/<id>.json``: what ``start`` saw, kept for ``submit``. The host can edit
    it; nothing in it is trusted beyond what the request id binds (see ``_binding``)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    request: str
    attempt: int
    number: int = Field(alias="pass")
    mode: str
    harness: str
    manifest_digest: str
    files: dict[str, str]
    fingerprint: str
    results: list[dict[str, Any]]


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
    refuse_out_of_order(paths.record)
    ctx = UnitContext.load(paths, request.harness, request.mode, request.base_revision)
    engine.read_manifest(ctx)
    with unit_lock(paths, say):
        doc = own_history(paths, say)
        if to_redo(doc):  # a pass that could not verify is done again (dropped at submit)
            doc = without_last_pass(doc)
        number = len(doc.attempt_passes()) + 1
        if number > ctx.budget:
            raise InvalidInput(
                f"{paths.display(paths.findings)}: attempt {doc.attempt} has used its "
                f"{ctx.budget} pass(es); decide at the gate (`review gate`)"
            )
        gathered = engine.gather(ctx, say)
        binding = _binding(gathered.frozen.fingerprint, ctx.mode, str(ctx.harness))
        request_id = f"{paths.unit or 'stage'}-a{doc.attempt}-p{number}-{binding}"
        brief = write_brief(
            paths.brief("reviewer", doc.attempt, number), reviewer_brief(ctx, doc, gathered)
        )
        saved = SavedRequest.model_validate(
            {
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
        )
        text = dump_json(saved.model_dump(mode="json", by_alias=True))
        write_atomic(paths.requests / f"{request_id}.json", text)
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
    by: str | None = None,
) -> ReviewOutcome:
    say = progress or (lambda _: None)
    paths = RecordPaths.resolve(workspace, unit, record, manifest)
    saved = _load_request(paths, request_id)
    ctx = replace(UnitContext.load(paths, Path(saved.harness), saved.mode), by=by)
    found = _read_answer(answer)
    with unit_lock(paths, say):
        doc = load_unit_document(paths) or engine.new_document(paths.unit)
        redo = to_redo(doc)
        if redo and (doc.attempt, redo[0].number) == (saved.attempt, saved.number):
            doc = redo_unverified(ctx, doc, say)  # what start numbered this pass for
        if (doc.attempt, len(doc.attempt_passes()) + 1) != (saved.attempt, saved.number):
            raise InvalidInput(
                f"--request {request_id}: already submitted, or superseded; "
                "run `review start` again"
            )
        gathered = _regather(ctx, saved, request_id, say)
        checked = scrub_check(engine.check_answer(ctx, doc, gathered, found.text))
        if checked.reason:
            say(f"answer rejected: {checked.reason}")
        doc = engine.conclude(
            ctx, doc, gathered, engine.reviewer_record(HOST_AGENT, checked), checked
        )
        save_document(paths, doc)
    record_upstream_review(ctx.harness, ctx.stage.lead_agent, doc, paths.unit, say)
    return outcome_of(doc, paths)


def _read_answer(answer: Path) -> Unwrapped:
    """The answer inside the file, in any shape an agent's stdout may have; bad input
    naming the file when it is in none (the same words as for a command reviewer)."""
    try:
        found = unwrap(answer.read_bytes())
    except OSError as exc:
        raise InvalidInput(f"{answer}: cannot read the answer: {exc.strerror}") from None
    reason = found.error
    if reason is None and found.form == "raw":  # no known shape: say why it is not one
        reason = validate_answer(found.text, ()).reason
    if reason is not None:
        raise InvalidInput(f"{answer}: {scrub_line(reason)}")
    return found


def _load_request(paths: RecordPaths, request_id: str) -> SavedRequest:
    if not _REQUEST_ID.match(request_id):
        raise InvalidInput(f"--request {request_id!r}: not a request id printed by `review start`")
    path = paths.requests / f"{request_id}.json"
    if not path.is_file():
        raise InvalidInput(f"--request {request_id}: no such request for this unit")
    return load_json(SavedRequest, path, what="request")


def _regather(
    ctx: UnitContext, saved: SavedRequest, request_id: str, say: Callable[[str], None]
) -> engine.Gathered:
    """Freeze and run the sensors again, and check the source is still what ``start`` saw.

    The fingerprint is checked against the request id too, which ``start`` printed to
    the host: editing the saved fingerprint alone does not pass.
    """
    # Checked before the sensors run (a stale request costs nothing) and after (a change
    # while they ran is caught too).
    _check_fresh(freeze_unit(engine.read_manifest(ctx), ctx.paths.workspace), saved, request_id)
    gathered = engine.gather(ctx, say)
    _check_fresh(gathered.frozen, saved, request_id)
    return gathered


def _binding(fingerprint: str, mode: str, harness: str) -> str:
    """What the request id printed to the host binds: the source, the mode (the pass
    budget) and the harness (the sensors). Editing the request file cannot change them."""
    return hashlib.sha256(f"{fingerprint}\0{mode}\0{harness}".encode()).hexdigest()[:8]


def _check_fresh(frozen: Frozen, saved: SavedRequest, request_id: str) -> None:
    fingerprint = frozen.fingerprint
    bound = _binding(fingerprint, saved.mode, saved.harness)
    if fingerprint != saved.fingerprint or not request_id.endswith(bound):
        raise StaleRequest(
            f"--request {request_id}: the claimed source, the manifest or the saved request "
            "changed since `review start`; run `review start` again"
        )
