"""One review pass: freeze, sensors, the reviewer's answer, the ledger merge, the verdict.

Split in two halves so the host-driven verbs can stop between them: ``gather``
(freeze + sensors) and ``conclude`` (answer -> findings -> pass -> document).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import date
from typing import cast

from aidlc_review.harness.definitions.sensor import SensorManifest
from aidlc_review.review.agents.answer import AnswerCheck, frozen_line_counts, validate_answer
from aidlc_review.review.agents.text import known_hashes
from aidlc_review.review.findings.change_filter import classify, unit_change
from aidlc_review.review.findings.evidence import checked_evidence, reading
from aidlc_review.review.findings.ledger import Observation, known_category, merge, resolutions
from aidlc_review.review.findings.verdict import NOT_READY, READY, decide
from aidlc_review.review.inputs.source_manifest import (
    SourceManifest,
    claimed_files,
    read_source_manifest,
)
from aidlc_review.review.inputs.unit import UnitContext
from aidlc_review.review.record.audit import decider, utc_now
from aidlc_review.review.record.models import (
    Check,
    CheckStatus,
    FindingsDocument,
    Pass,
    ReviewerAnswer,
    ReviewerRecord,
)
from aidlc_review.review.record.receipt import issue_receipt
from aidlc_review.review.record.waivers import waived_prints
from aidlc_review.review.report.markdown import load_renderer, tool_label
from aidlc_review.review.source.baseline import Baseline, drift, ensure_baseline
from aidlc_review.review.source.freeze import Frozen, freeze_unit
from aidlc_review.review.source.git_drift import list_files
from aidlc_review.review.source.kept_source import keep_source
from aidlc_review.sensors.redact import Quoted
from aidlc_review.sensors.results import CheckFinding, CheckResult
from aidlc_review.sensors.tools import on_next_start
from aidlc_review.severity import Severity, blocks

Progress = Callable[[str], None]
UNAVAILABLE_PRINT = "runtime/reviewer-unavailable"
DRIFT_PRINT = "runtime/unclaimed-change"
QUOTED_PRINT = "runtime/secret-quoted"
_CATEGORY = {
    "code-style": "maintainability",
    "style": "maintainability",
    "lint": "maintainability",
    "testing": "tests",
    "coverage": "tests",
    "types": "correctness",
    "type-safety": "correctness",
    "typing": "correctness",
    "secrets": "security",
}
_ADVICE = {
    "formatter": "Run the workspace's formatter on the file and keep the result.",
    "secret-scan": "Remove the secret from the source, rotate it, and load it from the "
    "environment or a secret store; allowlist only values that are not secrets.",
    "coverage": "Add tests that exercise the uncovered lines, including the failure paths.",
    "linter": "Fix the code the linter points at (or configure the rule deliberately).",
    "type-check": "Fix the type error the checker reports.",
    "findings-schema": "Re-run the review so the runtime rewrites the findings document.",
}

UNVERIFIED_ADVICE = (
    "Fix what stopped the check (the finding names the cause and the fix that fits), then "
    "run `aidlc-review review run` again: a pass whose checks could not verify is redone "
    "without spending the pass budget."
)


@dataclass(frozen=True)
class Gathered:
    manifest: SourceManifest
    frozen: Frozen
    results: list[CheckResult]
    baseline: Baseline
    drift: list[tuple[str, str]]


def new_document(unit: str | None) -> FindingsDocument:
    return FindingsDocument(unit=unit, attempt=1, verdict=NOT_READY, passes=[], checks=[])


def read_manifest(ctx: UnitContext) -> SourceManifest:
    paths = ctx.paths
    if not paths.manifest.exists():
        from aidlc_review.errors import InvalidInput
        from aidlc_review.review.inputs.paths import missing_manifest

        raise InvalidInput(missing_manifest(paths))
    manifest = read_source_manifest(paths.manifest, paths.workspace)
    if manifest.unit != paths.unit:
        raise_mismatch(ctx, manifest.unit)
    if not claimed_files(manifest, paths.workspace):
        from aidlc_review.errors import InvalidInput

        raise InvalidInput(f"{paths.manifest}: $.writes: claims no files: nothing to review")
    return manifest


def raise_mismatch(ctx: UnitContext, unit: str | None) -> None:
    from aidlc_review.errors import InvalidInput

    wanted = f"--unit {ctx.paths.unit!r}" if ctx.paths.unit else "a stage-level run (no --unit)"
    raise InvalidInput(f"{ctx.paths.manifest}: $.unit: {unit!r} does not match {wanted}")


def gather(ctx: UnitContext, progress: Progress) -> Gathered:
    """Freeze the claimed files, compare the workspace with the baseline, run the sensors."""
    from aidlc_review.review.record.sensor_replay import run_and_keep

    manifest = read_manifest(ctx)
    frozen = freeze_unit(manifest, ctx.paths.workspace)
    progress(f"froze {len(frozen.files)} claimed file(s): {frozen.fingerprint[:19]}")
    try:
        keep_source(frozen, ctx.paths.workspace)  # for the next briefs' diffs and quotes
    except OSError as exc:
        progress(f"could not keep the frozen source for later diffs: {exc}")
    # the sensors compare with the same base as the unclaimed-changes check: Bolt's branch
    # point, else the workspace's base-revision, else the commit the stage-entry baseline
    # sealed (HEAD at the first pass), which is what every gate gives them (``proof._base``):
    # the same inputs on both sides, so the first gate replays this run
    base_revision = ctx.configured_base()
    baseline = ensure_baseline(ctx.paths, ctx.excluded(), sorted(frozen.claimed), base_revision)
    settings = ctx.sensor_settings(at=baseline.base)  # the table at the base judges
    if base_revision or baseline.base:
        settings["base_revision"] = base_revision or baseline.base
    if "in_force" in settings:
        progress(settings.pop("in_force"))
    # one look at the tree for the drift check and the sensors' inputs: nothing is written
    # between them (the key after the sensors ran, and the late drift check, look again)
    listing = list_files(ctx.paths.workspace)
    drifted = drift(ctx.paths, baseline, frozen.claimed, in_pass=True, listing=listing)
    for _, reason in drifted:
        progress(reason)
    # kept, sealed, for the first gate after this review (``review.record.sensor_replay``)
    with loading_what_follows(ctx.sensors):
        results = run_and_keep(
            ctx.paths, ctx.harness, list(frozen.files), ctx.sensors, settings, progress, listing
        )
    return Gathered(manifest, frozen, results, baseline, drifted)


@contextmanager
def loading_what_follows(sensors: list[SensorManifest]) -> Iterator[None]:
    """While the sensors' tools run, what follows them loads on a thread: the runners of
    the project's tests (``sensors.api.load_runners``) and the report's renderer, so the
    tests start as soon as the static tools end and writing the report only renders it.
    It starts once the first tool has started: before that it would take the interpreter
    from the work that starts the tools (and, with no tool, as the sensors end)."""
    begun = threading.Event()

    def load() -> None:
        begun.wait()
        from aidlc_review.sensors.api import load_runners

        load_runners(sensors)
        load_renderer()

    loading = threading.Thread(target=load, name="aidlc-loading", daemon=True)
    forget = on_next_start(begun.set)
    loading.start()
    try:
        yield
    finally:
        forget()
        begun.set()
        loading.join()


def builtin_answer(results: list[CheckResult]) -> ReviewerAnswer:
    """The built-in reviewer: no model; it states what the sensors found, as a verdict."""
    blocking = sum(1 for r in results for f in r.findings if blocks(f.severity))
    ran = ", ".join(f"{r.name} {r.status}" for r in results) or "no sensors"
    summary = (
        f"Built-in review (no model): a checks-only verdict, no one read the code. {ran}. "
        f"{blocking} blocking sensor finding(s)."
    )
    unjudged = unjudged_note(results)
    if unjudged:
        summary += f" Not checked: {unjudged[0].reason}."
    return ReviewerAnswer(verdict=NOT_READY if blocking else READY, summary=summary, findings=[])


def check_answer(
    ctx: UnitContext, doc: FindingsDocument, gathered: Gathered, text: str | bytes | None
) -> AnswerCheck:
    """The one check of a reviewer's answer text before this pass concludes: its schema,
    claimed paths, lines inside the frozen files, and IDs of the unit's earlier reviewer
    findings (``answer.validate_answer``). Each try of a pass calls it once."""
    history = doc.passes[-1].findings if doc.passes else []
    return validate_answer(
        text,
        gathered.frozen.files,
        lines=frozen_line_counts(ctx.paths.workspace, gathered.frozen.files),
        known={f.id for f in history if f.source == "reviewer"},
    )


def sensor_observations(results: list[CheckResult]) -> list[Observation]:
    """What the sensors found, a failing test a static finding explains folded into it."""
    from aidlc_review.review.findings.explained import fold_explained

    return [_sensor_observation(r, f) for r in fold_explained(results) for f in r.findings]


def observations(
    gathered: Gathered, answer: AnswerCheck, known: set[str] | None = None
) -> list[Observation]:
    seen = sensor_observations(gathered.results)
    seen += [_drift_observation(path, reason) for path, reason in gathered.drift]
    seen += [_unreadable_observation(p, why) for p, why in gathered.frozen.unreadable.items()]
    seen += [_quoted_observation(q) for q in answer.quoted if q.scan_hash not in (known or set())]
    if answer.answer is None:
        seen.append(
            Observation(
                "major",
                "correctness",
                "",
                None,
                f"reviewer unavailable: {answer.reason}",
                "The reviewer's answer was missing or rejected, so the claimed source was not "
                "reviewed by it.",
                "Run the review again with a working reviewer.",
                "runtime",
                UNAVAILABLE_PRINT,
                check=None,
                rule="reviewer-unavailable",
            )
        )
        return seen
    from aidlc_review.review.findings.ledger import reviewer_observations

    return seen + reviewer_observations(answer.answer)


def conclude(
    ctx: UnitContext,
    doc: FindingsDocument,
    gathered: Gathered,
    reviewer: ReviewerRecord,
    answer: AnswerCheck,
) -> FindingsDocument:
    """The document after this pass, with a receipt bound to the bytes that were frozen."""
    attempt = doc.attempt
    number = len(doc.attempt_passes()) + 1
    history = doc.passes[-1].findings if doc.passes else []
    gathered = _with_late_drift(ctx, gathered)
    messages = [f.message for r in gathered.results for f in r.findings]
    known = known_hashes(messages + [f.finding for f in history])
    seen = observations(gathered, answer, known)
    # A finding on a file that is gone can be resolved; on an unclaimed file that is still
    # there, it cannot (nothing reviewed it this pass).
    gone = {f.path for f in history if f.path and not (ctx.paths.workspace / f.path).exists()}
    reviewed = set(gathered.frozen.files) | gone
    resolved = resolutions(answer.answer)
    change = unit_change(
        ctx.paths.workspace, doc.unit, gathered.baseline, gathered.frozen.files, ctx
    )
    changed = change.lines if change else None
    findings = merge(history, seen, attempt, number, reviewed, resolved, changed)
    findings = classify(findings, change)  # what the unit did not change does not block
    findings = checked_evidence(findings, reading(ctx.paths.workspace))  # nor what no code backs
    checks = [to_check(r) for r in gathered.results] + _git_note(gathered.baseline)
    checks += unjudged_note(gathered.results)
    item = Pass(
        attempt=attempt,
        number=number,  # type: ignore[call-arg]  # "pass" is the alias
        verdict=decide(findings, waived_prints(doc, findings, date.today())),
        source_fingerprint=gathered.frozen.fingerprint,
        reviewer=reviewer,
        findings=findings,
        checks=checks,
        at=utc_now(),
        by=decider(ctx.paths.workspace, ctx.by),
    )
    passes = [*doc.passes, item]
    receipt = issue_receipt(
        unit=doc.unit,
        manifest=ctx.paths.display(ctx.paths.manifest),
        frozen=gathered.frozen,
        passes=passes,
        checks=checks,
        baseline_digest=gathered.baseline.digest,
        waivers=doc.waivers,
    )
    return doc.model_copy(
        update={"passes": passes, "verdict": item.verdict, "checks": checks, "receipt": receipt}
    )


def _with_late_drift(ctx: UnitContext, gathered: Gathered) -> Gathered:
    """Drift again after the reviewer ran: a review whose own agent touched unclaimed files
    is NOT-READY in that same run, not only at ``verify``."""
    now = drift(ctx.paths, gathered.baseline, gathered.frozen.claimed, in_pass=True)
    late = [d for d in now if d not in gathered.drift]
    return replace(gathered, drift=[*gathered.drift, *late]) if late else gathered


def _git_note(baseline: Baseline) -> list[Check]:
    """Said in the report: without git only changes after the first pass can be seen."""
    if baseline.base is not None:
        return []
    reason = (
        "no git base: changes made before the first pass cannot be seen; "
        "any unclaimed change after it blocks"
    )
    return [Check(name="unclaimed-changes", status="skipped", reason=reason, findings=0)]


UNJUDGED = "unjudged-source"  # the row that says what no language check took


def unjudged_note(results: list[CheckResult]) -> list[Check]:
    """Said in the report and at the gate: the claimed source files a language check's
    tools did not take ("no linter or type-check ran for 4 Go file(s)"), never read as clean."""
    from aidlc_review.review.report.render import code_span
    from aidlc_review.sensors.untaken import unjudged_groups

    left = {r.name: r.details["untaken"] for r in results if r.details.get("untaken")}
    parts = []
    for checks, language, paths in unjudged_groups(left):
        named = ", ".join(code_span(p) for p in paths[:3]) + (", ..." if len(paths) > 3 else "")
        which = checks[0] if len(checks) == 1 else f"{', '.join(checks[:-1])} or {checks[-1]}"
        parts.append(f"no {which} ran for {len(paths)} {language} file(s) ({named})")
    said = "; ".join(parts)  # names are code spans: anyone's words, inert in Markdown
    return [Check(name=UNJUDGED, status="skipped", reason=said, findings=0)] if said else []


def reviewer_record(agent: str, answer: AnswerCheck) -> ReviewerRecord:
    if answer.answer is None:
        return ReviewerRecord(
            agent=agent, status="unavailable", reason=answer.reason, usage=answer.usage
        )
    return ReviewerRecord(
        agent=agent,
        status="answered",
        summary=answer.answer.summary,
        verdict=answer.answer.verdict,
        usage=answer.usage,
    )


def to_check(result: CheckResult) -> Check:
    return Check(
        name=result.name,
        status=cast(CheckStatus, result.status),
        reason=result.reason,
        command=result.command,
        tool=result.tool,
        tool_version=result.tool_version,
        findings=len(result.findings),
    )


def _drift_observation(path: str, reason: str) -> Observation:
    return Observation(
        "major",
        "configuration",
        path,
        None,
        reason,
        "No unit's source manifest claims this path now, so no pass reviewed it; it differs "
        "from the stage-entry baseline taken when this unit's review began.",
        "Undo the change, or claim the path in the unit's source manifest so it is reviewed.",
        "runtime",
        f"{DRIFT_PRINT}:{path}",
        check=None,
        rule="unclaimed-change",
    )


def _unreadable_observation(path: str, why: str) -> Observation:
    return Observation(
        "major",
        "correctness",
        path,
        None,
        f"could not verify: {path}: {why}",
        "The path is under a claimed directory, but neither the sensors nor the reviewer "
        "could read it, so the claim covers source nobody reviewed.",
        "Replace it with a regular file, or remove it from the claimed directory.",
        "runtime",
        f"runtime/unreadable:{path}",
        check=None,
        rule="could-not-verify",
    )


def _quoted_observation(quoted: Quoted) -> Observation:
    return Observation(
        "critical",
        "security",
        "",
        None,
        f"secret quoted by the reviewer: {quoted.marker}",
        "The reviewer's text held a secret that is not a known finding of this unit; it was "
        "redacted before anything was written. The value is somewhere the reviewer could read.",
        "Find where the secret lives, remove it and rotate it.",
        "runtime",
        f"{QUOTED_PRINT}:{quoted.hashed}",
        check=None,
        rule="secret-quoted",
    )


def _advice(result: CheckResult, finding: CheckFinding) -> str:
    """A check that could not verify needs its cause fixed, not more tests or code; a failing
    test (coverage.py's run, ``coverage/tests-failed``, or a described runner's, ``tests-failed``)
    needs to pass, not more tests."""
    if (finding.rule or "").endswith("/unverified"):
        return UNVERIFIED_ADVICE
    if (finding.rule or "").rpartition("/")[2] == "tests-failed":
        return (
            "Make the failing tests pass: fix the code they exercise, or the tests (the "
            "finding quotes the test runner)."
        )
    return _ADVICE.get(result.name, "Fix what the check reports.")


def _sensor_observation(result: CheckResult, finding: CheckFinding) -> Observation:
    named = tool_label(result.tool, result.tool_version)
    tool = f" ({named})" if named else ""
    evidence = f"{result.name}{tool} reported {finding.rule or 'this'}"
    if finding.line:
        evidence += f" at line {finding.line}"
    category = _CATEGORY.get(finding.category, finding.category)
    return Observation(
        cast(Severity, finding.severity),
        known_category(category),
        finding.path,
        str(finding.line) if finding.line else None,
        finding.message,
        evidence + ".",
        _advice(result, finding),
        "sensor",
        finding.fingerprint,
        check=result.name,
        rule=finding.rule,
    )
