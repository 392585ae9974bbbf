"""The runtime's public call ``run_review``: the loop to the gate (``verify`` checks it later)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aidlc_review.errors import InvalidInput, LockBusy
from aidlc_review.fsio import write_atomic
from aidlc_review.review.agents.adapters import (
    BUILTIN,
    NONE,
    AgentSpec,
    agent_env,
    parse_agent,
    refuse_if_cannot_work,
    run_command_agent,
    scrub_line,
)
from aidlc_review.review.agents.answer import AnswerCheck
from aidlc_review.review.agents.envelope import reported_failure
from aidlc_review.review.agents.text import scrub_check
from aidlc_review.review.findings.verdict import READY
from aidlc_review.review.inputs.intent import refuse_out_of_order
from aidlc_review.review.inputs.paths import RecordPaths
from aidlc_review.review.inputs.unit import UnitContext
from aidlc_review.review.record.audit import AUDIT_LOG, append_event, decider, read_events, utc_now
from aidlc_review.review.record.freshness import stale_reasons
from aidlc_review.review.record.models import FindingsDocument, Pass, RepairRecord
from aidlc_review.review.record.proof import prove_unit
from aidlc_review.review.record.seal import unseal
from aidlc_review.review.record.store import (
    SET_ASIDE,
    load_receipt,
    load_unit_document,
    save_document,
    set_aside_foreign,
)
from aidlc_review.review.record.upstream_receipt import record_upstream_review
from aidlc_review.review.record.verify import proof_reasons
from aidlc_review.review.record.waive import load_with_waivers
from aidlc_review.review.run import engine
from aidlc_review.review.run.lock import unit_lock
from aidlc_review.review.source.git_drift import one_look

if TYPE_CHECKING:  # the briefs and the asking: only when a model reviews or repairs
    from aidlc_review.review.agents.ask import Asking

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
    usage: list[dict[str, Any]] = field(default_factory=list)  # per pass of the attempt


def pass_usage(doc: FindingsDocument) -> list[dict[str, Any]]:
    """What each pass of the attempt's agents cost (turns, seconds, tokens, cost), as their
    CLIs reported it; a pass whose agents report none (builtin) is listed without."""
    rows = []
    for item in doc.attempt_passes():
        row: dict[str, Any] = {"pass": item.number}
        for role, record in (("reviewer", item.reviewer), ("repair", item.repair)):
            if record is not None and record.usage is not None:
                row[role] = record.usage.model_dump(mode="json")
        rows.append(row)
    return rows


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
    with one_look():  # git asked once about each commit named by its id
        ctx = UnitContext.load(paths, request.harness, request.mode, request.base_revision)
        ctx = replace(ctx, by=request.by)
        engine.read_manifest(ctx)  # bad input is refused before anything is locked or written
        with unit_lock(paths, say):
            doc = _review_loop(ctx, reviewer, repairer, request.agent_timeout, say)
    if request.sarif is not None:
        from aidlc_review.review.report.sarif import write_sarif

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
        usage=pass_usage(doc),
    )


def _review_loop(
    ctx: UnitContext, reviewer: AgentSpec, repairer: AgentSpec, timeout: float, say: Progress
) -> FindingsDocument:
    paths = ctx.paths
    doc = redo_unverified(ctx, own_history(paths, say), say)
    if _settled(ctx, doc, repairer, say):
        return doc
    if _retry_reviewer(ctx, doc):
        say(f"pass {len(doc.attempt_passes())}'s reviewer was unavailable: reviewing again")
    elif doc.receipt is not None and doc.verdict != READY and repairer.kind != NONE:
        fresh = not stale_reasons(paths, load_receipt(paths))
        if _passes_left(ctx, doc) and fresh and not budget_spent(ctx, doc):
            doc = _repair(ctx, doc, repairer, timeout, say)
    while True:
        if not _passes_left(ctx, doc):
            raise InvalidInput(
                f"{paths.display(paths.findings)}: attempt {doc.attempt} has used its "
                f"{ctx.budget} pass(es) and the source changed since; decide at the gate "
                "(`aidlc-review review gate --request-changes` starts a new attempt)"
            )
        doc = _one_pass(ctx, doc, reviewer, timeout, say)
        spent = budget_spent(ctx, doc)
        if doc.verdict == READY or not _passes_left(ctx, doc) or repairer.kind == NONE or spent:
            if spent and doc.verdict != READY:
                say(f"no repair: {spent}")
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


def to_redo(doc: FindingsDocument) -> tuple[Pass, list[str]] | None:
    """The last pass and its checks that could not verify (environment, tool crash,
    timeout), when that pass is to be done again: no repair and no gate decision followed
    it. None when the history stands as it is."""
    last = doc.attempt_passes()[-1:]
    if not last or last[0].repair is not None or _decided(doc):
        return None
    unverified = unverified_checks(last[0])
    return (last[0], unverified) if unverified else None


def redo_unverified(ctx: UnitContext, doc: FindingsDocument, say: Progress) -> FindingsDocument:
    """A last pass whose checks could not verify is done again, not counted: it is dropped
    from the history (its record kept aside, the redo audited). The redone pass runs every
    check afresh, so nothing of the dropped one decides the verdict."""
    redo = to_redo(doc)
    if redo is None:
        return doc
    last, unverified = [redo[0]], redo[1]
    label = f"redone-attempt{doc.attempt}-pass{last[0].number}"
    kept = keep_aside(ctx.paths, label, [ctx.paths.findings])
    event = {"event": "redo", "attempt": doc.attempt, "pass": last[0].number}
    _audit(ctx.paths, {**event, "checks": unverified, "kept": ctx.paths.display(kept)}, ctx.by)
    say(
        f"pass {last[0].number} of attempt {doc.attempt} could not verify "
        f"({', '.join(unverified)}): redoing it without spending the pass budget "
        f"(its record kept as {ctx.paths.display(kept)})"
    )
    return without_last_pass(doc)


def without_last_pass(doc: FindingsDocument) -> FindingsDocument:
    return doc.model_copy(update={"passes": doc.passes[:-1], "receipt": None})


def unverified_checks(item: Pass) -> list[str]:
    """The checks of a pass that could not decide: an error, or a required tool missing."""
    named = {c.name for c in item.checks if c.status == "error"}
    named |= {
        f.check
        for f in item.findings
        if f.source == "sensor" and f.check and (f.rule or "").endswith("/unverified")
    }
    return sorted(named)


def _decided(doc: FindingsDocument) -> bool:
    return any(g.attempt == doc.attempt for g in doc.gate)


def keep_aside(paths: RecordPaths, label: str, files: list[Path]) -> Path:
    """Copy ``files`` (those that exist) into a folder of the unit's engine dir named by
    ``label`` and the time: what a redo or a reset replaces is kept, never deleted."""
    stem = paths.engine / SET_ASIDE / f"{label}-{utc_now().replace(':', '')}"
    folder, count = stem, 1
    while folder.exists():  # two in one second: the earlier copy stays as it is
        count += 1
        folder = stem.with_name(f"{stem.name}-{count}")
    for path in files:
        if path.is_file():
            write_atomic(folder / path.name, path.read_bytes())
    return folder


def _audit(paths: RecordPaths, event: dict[str, Any], by: str | None) -> None:
    stamp = {"unit": paths.unit, "at": utc_now(), "by": decider(paths.workspace, by)}
    append_event(paths.engine / AUDIT_LOG, {**event, **stamp})


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
    spent = budget_spent(ctx, doc) if reviewer.kind != BUILTIN else None
    if reviewer.kind == BUILTIN:  # no model reads a brief: none is built
        answer = AnswerCheck(engine.builtin_answer(gathered.results), None)
    elif spent:  # no model runs: the pass says why, and it is never READY by silence
        answer = AnswerCheck(None, spent)
    else:
        from aidlc_review.review.agents.ask import Asking
        from aidlc_review.review.agents.brief import reviewer_brief, write_brief

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


def budget_spent(ctx: UnitContext, doc: FindingsDocument) -> str | None:
    """Why no agent may run again in this attempt (its ``agent-budget-usd`` or
    ``agent-budget-tokens`` spent, as the CLIs reported it), or None."""
    # The budget is the workspace's own table as it stood when this run began (the run's
    # Project), as before, and no longer re-read per pass: a repairer of this run that
    # raises the budget in the table it can edit does not buy itself more turns. Not the
    # base's table: it is the spending limit of whoever starts the run (an uncommitted
    # value counts), not a rule the change is judged by.
    chosen = ctx.project.unit_settings
    if chosen.agent_budget_usd is None and chosen.agent_budget_tokens is None:
        return None
    cost, tokens = 0.0, 0
    for item in doc.attempt_passes():
        for usage in (item.reviewer.usage, item.repair.usage if item.repair else None):
            if usage is not None:
                cost += usage.cost_usd or 0.0
                tokens += (usage.input_tokens or 0) + (usage.output_tokens or 0)
    if chosen.agent_budget_usd is not None and cost >= chosen.agent_budget_usd:
        return f"agent budget exhausted: ${cost:.4f} of ${chosen.agent_budget_usd:g} spent"
    if chosen.agent_budget_tokens is not None and tokens >= chosen.agent_budget_tokens:
        return f"agent budget exhausted: {tokens:,} of {chosen.agent_budget_tokens:,} tokens spent"
    return None


def _ask_reviewer(asking: Asking) -> AnswerCheck:
    from aidlc_review.review.agents.ask import ask_command_reviewer

    checked = scrub_check(ask_command_reviewer(asking))
    if checked.reason:
        asking.say(f"reviewer {asking.reviewer}: answer rejected: {checked.reason}")
    return checked


def _repair(
    ctx: UnitContext, doc: FindingsDocument, repairer: AgentSpec, timeout: float, say: Progress
) -> FindingsDocument:
    from aidlc_review.review.agents.brief import repair_brief, write_brief

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
    refuse_if_cannot_work("repairer", repairer, run)  # not logged in, no key: no pass spent
    # an agent CLI can exit 0 and still say in its envelope that it failed (no credit, turn
    # limit): that repair is not done; its own words are kept, secrets redacted
    said = reported_failure(run.stdout) if run.failure is None else None
    failure = run.failure or (scrub_line(said) if said else None)
    record = RepairRecord(
        agent=str(repairer), status="failed" if failure else "done", reason=failure, usage=run.usage
    )
    say(f"repairer {repairer}: {record.status}" + (f" ({record.reason})" if record.reason else ""))
    passes = [*doc.passes[:-1], last.model_copy(update={"repair": record})]
    doc = doc.model_copy(update={"passes": passes, "receipt": None})
    save_document(paths, doc)  # also puts back review files a repairer must not have touched
    return doc


def _say_gate(ctx: UnitContext, doc: FindingsDocument, say: Progress) -> None:
    open_ = doc.open_findings()
    last = doc.latest
    earlier = [f for f in last.findings if f.status == "pre-existing"] if last else []
    before = f" ({len(earlier)} pre-existing on lines the unit did not change)" if earlier else ""
    say(
        f"{doc.verdict} after {len(doc.attempt_passes())} of {ctx.budget} pass(es); "
        f"{len(open_)} open finding(s) go to the code-review gate{before}"
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
        "resets": read_events(paths.engine / AUDIT_LOG, "reset"),
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


@dataclass(frozen=True)
class ResetOutcome:
    unit: str | None
    kept: Path  # where the unit's previous history now lives
    event: dict[str, Any]  # as written to the audit log


def reset_review(
    workspace: Path,
    unit: str | None,
    record: Path | None = None,
    manifest: Path | None = None,
    by: str | None = None,
) -> ResetOutcome:
    """Start the unit's review history clean: its findings document, receipt and report
    move aside (kept, never deleted), the reset is audited, and the next `review run`
    begins at attempt 1, pass 1. A reset approves nothing: the next pass runs every check
    on the bytes. Refused while another run holds the unit's lock."""
    paths = RecordPaths.resolve(workspace, unit, record, manifest)
    history = [paths.findings, paths.receipt, paths.report]
    if not any(path.is_file() for path in history):
        raise InvalidInput(f"{paths.display(paths.findings)}: no review history to reset")
    try:
        with unit_lock(paths, _quiet, wait=0):
            kept = keep_aside(paths, "reset", history)
            for path in history:
                path.unlink(missing_ok=True)
                unseal(paths, path)
            event = {"event": "reset", "kept": paths.display(kept)}
            _audit(paths, event, by)
    except LockBusy:
        raise LockBusy(
            f"{paths.display(paths.lock)}: another review of this unit is running; "
            "reset refused (try again when it has finished)"
        ) from None
    return ResetOutcome(unit, kept, read_events(paths.engine / AUDIT_LOG, "reset")[-1])


def review_resets(
    workspace: Path, unit: str | None, record: Path | None = None, manifest: Path | None = None
) -> list[dict[str, Any]]:
    """The unit's resets from its audit log, oldest first (said at the gate and in status)."""
    paths = RecordPaths.resolve(workspace, unit, record, manifest)
    return read_events(paths.engine / AUDIT_LOG, "reset")
