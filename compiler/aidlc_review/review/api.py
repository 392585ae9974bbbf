"""The runtime's public call ``run_review``: the loop to the gate (``verify`` checks it later)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path
from typing import Any

from aidlc_review.errors import InvalidInput
from aidlc_review.review import engine
from aidlc_review.review.agent_text import scrub_check
from aidlc_review.review.agents import (
    BUILTIN,
    NONE,
    AgentSpec,
    agent_env,
    parse_agent,
    run_command_agent,
    scrub_line,
)
from aidlc_review.review.answer import AnswerCheck
from aidlc_review.review.ask import Asking, ask_command_reviewer
from aidlc_review.review.brief import repair_brief, reviewer_brief, write_brief
from aidlc_review.review.envelope import reported_failure
from aidlc_review.review.freshness import stale_reasons
from aidlc_review.review.intent import refuse_out_of_order
from aidlc_review.review.lock import unit_lock
from aidlc_review.review.models import FindingsDocument, RepairRecord
from aidlc_review.review.paths import RecordPaths
from aidlc_review.review.proof import prove_unit
from aidlc_review.review.store import (
    load_receipt,
    load_unit_document,
    save_document,
    set_aside_foreign,
)
from aidlc_review.review.unit import UnitContext
from aidlc_review.review.upstream_receipt import record_upstream_review
from aidlc_review.review.verdict import READY
from aidlc_review.review.verify import proof_reasons
from aidlc_review.review.waive import load_with_waivers

Progress = Callable[[str], None]


@dataclass(frozen=True)
class ReviewRequest:
    workspace: Path
    unit: str | None = None
    record: Path | None = None
    manifest: Path | None = None
    mode: str = "gated"
    reviewer: str = "builtin"
    repairer: str = "none"
    agent_timeout: float = 600.0
    sarif: Path | None = None
    harness: Path | None = None
    base_revision: str | None = None  # Bolt: the unit's branch point (else the settings/HEAD)
    by: str | None = None  # who runs it (audit); else git user.email, else the OS user


@dataclass(frozen=True)
class ReviewOutcome:
    verdict: str
    passes_used: int
    attempt: int
    open_findings: list[dict[str, Any]]
    findings_path: Path
    report_path: Path
    receipt: dict[str, Any] | None


def run_review(request: ReviewRequest, progress: Progress | None = None) -> ReviewOutcome:
    """Review -> repair -> re-review within the mode's pass budget, then stop at the gate."""
    say = progress or _quiet
    paths = RecordPaths.resolve(request.workspace, request.unit, request.record, request.manifest)
    refuse_out_of_order(paths.record)
    reviewer = parse_agent(request.reviewer, "--reviewer", (BUILTIN,))
    repairer = parse_agent(request.repairer, "--repairer", (NONE,))
    if not request.agent_timeout > 0:
        raise InvalidInput(
            f"--agent-timeout {request.agent_timeout}: must be a positive number of seconds"
        )
    ctx = UnitContext.load(paths, request.harness, request.mode, request.base_revision)
    ctx = replace(ctx, by=request.by)
    engine.read_manifest(ctx)  # bad input is refused before anything is locked or written
    with unit_lock(paths, say):
        doc = _review_loop(ctx, reviewer, repairer, request.agent_timeout, say)
    if request.sarif is not None:
        from aidlc_review.review.sarif import write_sarif

        try:
            write_sarif(request.sarif, doc)
        except OSError as exc:  # a full disk: the review itself is saved, say what failed
            raise InvalidInput(
                f"--sarif {request.sarif}: cannot write: {exc.strerror or exc}"
            ) from None
        say(f"wrote SARIF to {request.sarif}")
    return outcome_of(doc, paths)


def own_history(paths: RecordPaths, say: Progress) -> FindingsDocument:
    """The unit's history this machine sealed, else a new one; a document written
    elsewhere (or planted before the first pass) is set aside, never built on."""
    moved = set_aside_foreign(paths)
    if moved is not None:
        say(
            f"{paths.display(paths.findings)}: not written by aidlc-review on this machine; "
            f"set aside as {paths.display(moved)}; this review starts its own history"
        )
    return load_with_waivers(paths, date.today()) or engine.new_document(paths.unit)


def outcome_of(doc: FindingsDocument, paths: RecordPaths) -> ReviewOutcome:
    return ReviewOutcome(
        verdict=doc.verdict,
        passes_used=len(doc.attempt_passes()),
        attempt=doc.attempt,
        open_findings=[f.model_dump(mode="json") for f in doc.open_findings()],
        findings_path=paths.findings,
        report_path=paths.report,
        receipt=doc.receipt.model_dump(mode="json", by_alias=True) if doc.receipt else None,
    )


def _review_loop(
    ctx: UnitContext, reviewer: AgentSpec, repairer: AgentSpec, timeout: float, say: Progress
) -> FindingsDocument:
    paths = ctx.paths
    doc = own_history(paths, say)
    if _settled(ctx, doc, repairer, say):
        return doc
    if _retry_reviewer(ctx, doc):
        say(f"pass {len(doc.attempt_passes())}'s reviewer was unavailable: reviewing again")
    elif doc.receipt is not None and doc.verdict != READY and repairer.kind != NONE:
        if _passes_left(ctx, doc) and not stale_reasons(paths, load_receipt(paths)):
            doc = _repair(ctx, doc, repairer, timeout, say)
    while True:
        if not _passes_left(ctx, doc):
            raise InvalidInput(
                f"{paths.display(paths.findings)}: attempt {doc.attempt} has used its "
                f"{ctx.budget} pass(es) and the source changed since; decide at the gate "
                "(`aidlc-review review gate --request-changes` starts a new attempt)"
            )
        doc = _one_pass(ctx, doc, reviewer, timeout, say)
        if doc.verdict == READY or not _passes_left(ctx, doc) or repairer.kind == NONE:
            _say_gate(ctx, doc, say)
            return doc
        doc = _repair(ctx, doc, repairer, timeout, say)


def _settled(ctx: UnitContext, doc: FindingsDocument, repairer: AgentSpec, say: Progress) -> bool:
    """True when this attempt already ended on bytes that have not changed since."""
    if doc.receipt is None or doc.receipt.attempt != doc.attempt:
        return False
    if stale_reasons(ctx.paths, load_receipt(ctx.paths)) or _retry_reviewer(ctx, doc):
        return False
    wants_repair = doc.verdict != READY and repairer.kind != NONE and _passes_left(ctx, doc)
    if not wants_repair:
        say(f"unchanged since pass {doc.receipt.number} of attempt {doc.attempt}: {doc.verdict}")
    return not wants_repair


def _retry_reviewer(ctx: UnitContext, doc: FindingsDocument) -> bool:
    """The attempt's last pass had no review (reviewer unavailable) and the budget allows one."""
    last = doc.attempt_passes()[-1:]
    return bool(last) and last[0].reviewer.status == "unavailable" and _passes_left(ctx, doc)


def _passes_left(ctx: UnitContext, doc: FindingsDocument) -> bool:
    return len(doc.attempt_passes()) < ctx.budget


def _one_pass(
    ctx: UnitContext, doc: FindingsDocument, reviewer: AgentSpec, timeout: float, say: Progress
) -> FindingsDocument:
    number = len(doc.attempt_passes()) + 1
    say(f"attempt {doc.attempt}, pass {number}/{ctx.budget}: freezing and running sensors")
    gathered = engine.gather(ctx, say)
    brief = write_brief(
        ctx.paths.brief("reviewer", doc.attempt, number), reviewer_brief(ctx, doc, gathered)
    )
    answer = _ask_reviewer(Asking(ctx, doc, reviewer, gathered, brief, number, timeout, say))
    doc = engine.conclude(ctx, doc, gathered, engine.reviewer_record(str(reviewer), answer), answer)
    save_document(ctx.paths, doc)
    record_upstream_review(ctx.harness, ctx.stage.lead_agent, doc, ctx.paths.unit, say)
    blocking = sum(1 for f in doc.open_findings() if f.blocking)
    say(
        f"attempt {doc.attempt}, pass {number}/{ctx.budget}: {doc.verdict} "
        f"({blocking} open blocking, {len(doc.open_findings()) - blocking} open minor)"
    )
    return doc


def _ask_reviewer(asking: Asking) -> AnswerCheck:
    if asking.reviewer.kind == BUILTIN:
        return AnswerCheck(engine.builtin_answer(asking.gathered.results), None)
    checked = scrub_check(ask_command_reviewer(asking))
    if checked.reason:
        asking.say(f"reviewer {asking.reviewer}: answer rejected: {checked.reason}")
    return checked


def _repair(
    ctx: UnitContext, doc: FindingsDocument, repairer: AgentSpec, timeout: float, say: Progress
) -> FindingsDocument:
    last = doc.passes[-1]
    brief = write_brief(
        ctx.paths.brief("repairer", last.attempt, last.number), repair_brief(ctx, doc)
    )
    say(
        f"repairer {repairer}: repairing {sum(f.blocking for f in doc.open_findings())} "
        f"blocking finding(s) (timeout {timeout:g}s)"
    )
    paths = ctx.paths
    env = agent_env(
        "repairer",
        unit=paths.unit,
        workspace=paths.workspace,
        record=paths.record,
        brief=brief,
        number=last.number,
    )
    run = run_command_agent(
        repairer,
        cwd=paths.workspace,
        brief=brief.read_text(encoding="utf-8"),
        env=env,
        timeout=timeout,
        relay=say,
    )
    # an agent CLI can exit 0 and still say in its envelope that it failed (no credit, turn
    # limit): that repair is not done; its own words are kept, secrets redacted
    said = reported_failure(run.stdout) if run.failure is None else None
    failure = run.failure or (scrub_line(said) if said else None)
    record = RepairRecord(
        agent=str(repairer), status="failed" if failure else "done", reason=failure
    )
    say(f"repairer {repairer}: {record.status}" + (f" ({record.reason})" if record.reason else ""))
    passes = [*doc.passes[:-1], last.model_copy(update={"repair": record})]
    doc = doc.model_copy(update={"passes": passes, "receipt": None})
    save_document(paths, doc)  # also puts back review files a repairer must not have touched
    return doc


def _say_gate(ctx: UnitContext, doc: FindingsDocument, say: Progress) -> None:
    open_ = doc.open_findings()
    say(
        f"{doc.verdict} after {len(doc.attempt_passes())} of {ctx.budget} pass(es); "
        f"{len(open_)} open finding(s) go to the code-review gate"
    )


def _quiet(_: str) -> None:
    return None


def review_status(
    workspace: Path, unit: str | None, record: Path | None = None, manifest: Path | None = None
) -> dict[str, Any]:
    """Where the unit's review stands, for people and hosts (no side effects)."""
    paths = RecordPaths.resolve(workspace, unit, record, manifest)
    doc = load_unit_document(paths)
    base: dict[str, Any] = {
        "unit": unit,
        "findings_path": str(paths.findings),
        "report_path": str(paths.report),
    }
    if doc is None:
        return {**base, "state": "not-reviewed"}
    stale = proof_reasons(paths, prove_unit(paths, recompute=False), False) if doc.receipt else []
    decided = [g.decision for g in doc.gate if g.attempt == doc.attempt]
    state = decided[-1] if decided else ("at-gate" if doc.receipt else "in-review")
    return {
        **base,
        "state": state,
        "attempt": doc.attempt,
        "verdict": doc.verdict,
        "passes_used": len(doc.attempt_passes()),
        "open_findings": [f.model_dump(mode="json") for f in doc.open_findings()],
        "receipt": doc.receipt is not None,
        "stale": stale,
        "gate": [g.model_dump(mode="json") for g in doc.gate],
    }
