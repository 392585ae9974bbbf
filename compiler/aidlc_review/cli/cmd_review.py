"""``aidlc-review review``: run the code-review stage, host-driven verbs, verify, gate.

Exit codes: 0 READY / fresh / recorded, 1 NOT-READY / stale / refused,
2 bad input, 3 internal error. Progress goes to stderr; ``--json`` to stdout.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Collection
from pathlib import Path
from typing import Any

from aidlc_review.cli import review_summary, review_waive
from aidlc_review.cli.options import REPAIRER_METAVAR, REVIEWER_METAVAR, add_harness, add_json
from aidlc_review.cli.path_checks import (
    check_input_file,
    check_output_file,
    check_review_outputs,
    writing,
)
from aidlc_review.cli.review_annotate import add_output_format, output_format, unit_annotations


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("review", help="run the code-review stage on a unit's claimed source")
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", parser_class=type(parser))
    verbs.required = True
    _add_run_verb(verbs)
    _add_host_verbs(verbs)
    _add_record_verbs(verbs)
    review_summary.register(verbs)
    review_waive.register(verbs, _verb)


def _add_run_verb(verbs: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    run = _verb(
        verbs, "run", "review -> repair -> re-review within the pass budget, to the gate", _run
    )
    _add_run_options(run)
    run.add_argument(
        "--reviewer",
        default="builtin",
        metavar=REVIEWER_METAVAR,
        help="who reviews (default: builtin, no model; claude/codex: that CLI headless)",
    )
    run.add_argument(
        "--repairer",
        default="none",
        metavar=REPAIRER_METAVAR,
        help="who repairs blocking findings (default: none; claude/codex: that CLI headless)",
    )
    run.add_argument(
        "--agent-timeout",
        type=float,
        default=600.0,
        metavar="SECONDS",
        help="kill an agent command after this long (default: 600)",
    )
    run.add_argument(
        "--sarif",
        type=Path,
        default=None,
        metavar="FILE",
        help="also write the final open findings as SARIF 2.1.0",
    )
    add_output_format(run)
    _add_by(run)


def _add_host_verbs(verbs: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    start = _verb(
        verbs, "start", "freeze, run sensors, write the reviewer brief (host-driven)", _start
    )
    _add_run_options(start)
    submit = _verb(verbs, "submit", "conclude a pass with the host reviewer's answer", _submit)
    submit.add_argument(
        "--request", required=True, metavar="ID", help="id printed by `review start`"
    )
    submit.add_argument(
        "--answer", required=True, type=Path, metavar="FILE", help="the reviewer's JSON answer"
    )
    submit.add_argument("--sarif", type=Path, default=None, metavar="FILE")
    _add_by(submit)


def _add_record_verbs(verbs: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    _verb(verbs, "status", "show where the unit's review stands", _status)
    verify = _verb(
        verbs, "verify", "exit 1 naming every path that changed since the receipt", _verify
    )
    verify.add_argument(
        "--ready", action="store_true", help="also exit 1 unless the last verdict is READY"
    )
    verify.add_argument(
        "--unit-from-branch",
        action="store_true",
        help="the unit of the Bolt worktree this runs in (its branch is bolt-<unit>)",
    )
    add_output_format(verify)
    gate = _verb(verbs, "gate", "record the gate decision: approve or request changes", _gate)
    choice = gate.add_mutually_exclusive_group(required=True)
    choice.add_argument("--approve", action="store_const", const="approve", dest="decision")
    choice.add_argument(
        "--request-changes", action="store_const", const="request-changes", dest="decision"
    )
    gate.add_argument("--note", default=None, help="a note kept with the decision")
    _add_by(gate)
    reset = _verb(
        verbs, "reset", "start the unit's review history clean (kept aside, audited)", _reset
    )
    _add_by(reset)


def _add_by(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--by",
        default=None,
        metavar="WHO",
        help="who decides, recorded with the time (default: git user.email, else the OS user)",
    )


def _verb(
    verbs: argparse._SubParsersAction[argparse.ArgumentParser],
    name: str,
    help_text: str,
    handler: Any,
) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = verbs.add_parser(name, help=help_text)
    parser.add_argument(
        "--workspace", type=Path, default=Path("."), metavar="DIR",
        help="the project directory (default: the current one)",
    )  # fmt: skip
    parser.add_argument(
        "--unit", default=None, metavar="U", help="unit of work (omit: stage level)"
    )
    parser.add_argument(
        "--record",
        type=Path,
        default=None,
        metavar="DIR",
        help="AI-DLC record dir (default: the active intent's in an upstream project, "
        "else <workspace>/aidlc-docs)",
    )
    parser.add_argument(
        "--manifest",
        type=Path,
        default=None,
        metavar="FILE",
        help="source manifest (default: the unit's code-generation manifest)",
    )
    add_json(parser)
    parser.set_defaults(handler=_naming_unbacked_approvals(handler))
    return parser


def _naming_unbacked_approvals(handler: Any) -> Any:
    """Every ``review`` verb first names an approval of code-review upstream recorded without
    the plugin's READY (``hooks.approvals``); ``verify`` then fails."""

    def run(args: argparse.Namespace) -> int:
        from aidlc_review.hooks.approvals import unbacked_approvals

        named = unbacked_approvals(args.workspace)
        for line in named:
            print(f"aidlc-review: {line}", file=sys.stderr)
        code = int(handler(args))
        return 1 if named and code == 0 and args.verb == "verify" else code

    return run


def _add_run_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--mode", choices=("gated", "autonomous"), default="gated")
    parser.add_argument(
        "--base",
        type=_revision,
        default=None,
        metavar="REF",
        help="the unit's base revision, kept from its first pass: unclaimed changes, the "
        "brief's diff and changed-line coverage are measured from it (default: the "
        "workspace's base-revision, else HEAD)",
    )
    add_harness(parser, strict=False)


def _revision(text: str) -> str:
    if not text or text.startswith("-"):
        raise argparse.ArgumentTypeError(f"{text!r}: not a revision")
    return text


def _unit_of(args: argparse.Namespace) -> tuple[Path, str | None, Path | None, Path | None]:
    """Whose review a command works on: workspace, unit, record and manifest."""
    return args.workspace, args.unit, args.record, args.manifest


def _progress(message: str) -> None:
    print(f"review: {message}", file=sys.stderr, flush=True)


JSON_VERSION = 1  # of every `review ... --json` shape (docs/settings.md, "JSON output")


def _emit(args: argparse.Namespace, data: dict[str, Any], lines: list[str]) -> None:
    if args.json:
        shaped = {"json_version": JSON_VERSION, **data}
        sys.stdout.write(json.dumps(shaped, indent=2, default=str) + "\n")
    else:
        sys.stdout.write("".join(f"{line}\n" for line in lines))


def _request(args: argparse.Namespace, **extra: Any) -> Any:
    from aidlc_review.review.run.api import ReviewRequest

    return ReviewRequest(
        workspace=args.workspace,
        unit=args.unit,
        record=args.record,
        manifest=args.manifest,
        mode=args.mode,
        harness=args.harness,
        base_revision=args.base,
        **extra,
    )


def _outcome_lines(outcome: Any) -> list[str]:
    head = f"verdict: {outcome.verdict} (attempt {outcome.attempt}, {outcome.passes_used} pass(es))"
    return [
        head,
        *_finding_lines(outcome.open_findings),
        f"report:   {outcome.report_path}",
        f"findings: {outcome.findings_path}",
    ]


def _finding_lines(findings: list[dict[str, Any]], waived: Collection[str] = ()) -> list[str]:
    """Open findings quoted verbatim, one per line: ``CR-001 major src/a.py:4: text``; a
    finding a waiver covers says so (it stays open but does not block)."""
    lines = []
    for f in findings:
        where = (
            f["path"] + (f":{f['location']}" if f["location"] else "") if f["path"] else "(unit)"
        )
        severity = f["severity"] + (" waived" if f["id"] in waived else "")
        lines.append(f"  {f['id']} {severity:<8} {where}: {f['finding']}")
    return lines


def _outcome_json(outcome: Any) -> dict[str, Any]:
    return {
        "verdict": outcome.verdict,
        "attempt": outcome.attempt,
        "passes_used": outcome.passes_used,
        "open_findings": outcome.open_findings,
        "findings_path": str(outcome.findings_path),
        "report_path": str(outcome.report_path),
        "receipt": outcome.receipt,
        "usage": outcome.usage,
    }


def _run(args: argparse.Namespace) -> int:
    from aidlc_review.sensors.redact import load_plugins_early, stop_loading_early

    load_plugins_early()  # the claimed names are checked for secrets before any tool starts
    try:
        return _run_loaded(args)
    finally:
        stop_loading_early()


def _run_loaded(args: argparse.Namespace) -> int:
    from aidlc_review.review.run.api import run_review

    check_output_file(args.sarif, "--sarif")
    check_review_outputs({"--sarif": args.sarif}, *_unit_of(args))

    request = _request(
        args,
        reviewer=args.reviewer,
        repairer=args.repairer,
        agent_timeout=args.agent_timeout,
        sarif=args.sarif,
        by=args.by,
    )
    github = _chosen_format(args) == "github"
    outcome = run_review(request, _progress)
    if github:
        from aidlc_review.review.record.verify import verify_proof

        paths, proof, reasons = verify_proof(args.workspace, args.unit, args.record, args.manifest)
        sys.stdout.write(unit_annotations(paths, proof, reasons))
    else:
        _emit(args, _outcome_json(outcome), _outcome_lines(outcome))
    return 0 if outcome.verdict == "READY" else 1


def _chosen_format(args: argparse.Namespace) -> str:
    """``--output-format`` checked against ``--json`` up front; ``json`` sets ``--json``."""
    chosen = output_format(args)
    args.json = chosen == "json"
    return chosen


def _start(args: argparse.Namespace) -> int:
    from aidlc_review.review.run.host import start_review

    started = start_review(_request(args), _progress)
    data = {
        "request": started.request_id,
        "brief": str(started.brief),
        "attempt": started.attempt,
        "pass": started.number,
        "max_passes": started.budget,
    }
    _emit(args, data, [f"request: {started.request_id}", f"brief:   {started.brief}"])
    return 0


def _submit(args: argparse.Namespace) -> int:
    from aidlc_review.review.run.host import submit_review

    check_output_file(args.sarif, "--sarif")
    check_input_file(args.answer, "--answer")
    check_review_outputs({"--sarif": args.sarif}, *_unit_of(args))

    outcome = submit_review(
        args.workspace,
        args.unit,
        args.request,
        args.answer,
        record=args.record,
        manifest=args.manifest,
        progress=_progress,
        by=args.by,
    )
    if args.sarif is not None:
        from aidlc_review.review.record.store import load_document
        from aidlc_review.review.report.sarif import write_sarif

        document = load_document(outcome.findings_path)
        assert document is not None
        with writing("--sarif", args.sarif):
            write_sarif(args.sarif, document)
    _emit(args, _outcome_json(outcome), _outcome_lines(outcome))
    return 0 if outcome.verdict == "READY" else 1


def _status(args: argparse.Namespace) -> int:
    from aidlc_review.review.run.api import review_status

    status = review_status(args.workspace, args.unit, args.record, args.manifest)
    lines = [f"state: {status['state']}"]
    if "verdict" in status:
        lines.append(
            f"verdict: {status['verdict']} (attempt {status['attempt']}, "
            f"{status['passes_used']} pass(es), {len(status['open_findings'])} open)"
        )
        lines += [f"stale: {reason}" for reason in status["stale"]]
    lines += _reset_lines(status["resets"])
    lines.append(f"report: {status['report_path']}")
    _emit(args, status, lines)
    return 0


def _reset(args: argparse.Namespace) -> int:
    from aidlc_review.review.run.api import reset_review

    outcome = reset_review(args.workspace, args.unit, args.record, args.manifest, by=args.by)
    whose = outcome.unit or "the stage"
    line = f"reset: the review history of {whose} was kept as {outcome.event['kept']}"
    _emit(args, outcome.event, [line, "the next `review run` starts at attempt 1, pass 1"])
    return 0


def _reset_lines(resets: list[dict[str, Any]]) -> list[str]:
    """A reset is said wherever the review's standing is: its history began again there."""
    return [f"reset: {r['at']} by {r['by']} (earlier history kept as {r['kept']})" for r in resets]


def _verify(args: argparse.Namespace) -> int:
    from aidlc_review.errors import InvalidInput
    from aidlc_review.review.inputs.paths import RecordPaths, missing_manifest
    from aidlc_review.review.record.verify import verify_answer, verify_proof

    github = _chosen_format(args) == "github"
    unit = _branch_unit(args.workspace) if args.unit_from_branch else args.unit
    paths = RecordPaths.resolve(args.workspace, unit, args.record, args.manifest)
    reviewed = paths.findings.exists()
    if not reviewed and not paths.manifest.exists():  # a misspelt unit is not a fresh review
        raise InvalidInput(missing_manifest(paths))
    if github:  # the annotations name the findings: the full proof
        paths, proof, stale = verify_proof(
            args.workspace, unit, args.record, args.manifest, ready=args.ready
        )
        sys.stdout.write(unit_annotations(paths, proof, stale))
        for note in proof.unproven:
            print(f"not checked: {note}", file=sys.stderr)
        return 1 if stale else 0
    # on bytes this machine already proved: its sealed answer, without the record's models
    paths, stale, unproven = verify_answer(
        args.workspace, unit, args.record, args.manifest, ready=args.ready
    )
    fresh = (
        "fresh: the receipt matches the source"
        if reviewed
        else "not reviewed yet: no receipt to be stale (`verify --ready` requires a READY review)"
    )
    _emit(
        args,
        {"fresh": not stale, "stale": stale, "unproven": unproven},
        [f"stale: {reason}" for reason in stale] or [fresh],
    )
    for note in unproven:  # what could not be checked here, said every time
        print(f"not checked: {note}", file=sys.stderr)
    return 1 if stale else 0


def _branch_unit(workspace: Path) -> str:
    """``bolt-<unit>`` is the branch upstream's worktree tool gives each unit."""
    from aidlc_review.errors import InvalidInput
    from aidlc_review.gitdoor import git_text
    from aidlc_review.upstream.names import BOLT_PREFIX, bolt_branch

    branch = git_text(workspace, "rev-parse", "--abbrev-ref", "HEAD", timeout=30) or ""
    if not branch.startswith(BOLT_PREFIX) or branch == BOLT_PREFIX:
        raise InvalidInput(
            f"--unit-from-branch: {workspace} is not on a Bolt branch ({bolt_branch('<unit>')}), "
            f"but on {branch or 'no branch'!r}"
        )
    return branch.removeprefix(BOLT_PREFIX)


def _gate(args: argparse.Namespace) -> int:
    from aidlc_review.review.run.gate import decide_gate

    outcome = decide_gate(
        args.workspace,
        args.unit,
        args.decision,
        note=args.note,
        record=args.record,
        manifest=args.manifest,
        by=args.by,
    )
    data = {
        "decision": outcome.decision,
        "attempt": outcome.attempt,
        "next_attempt": outcome.next_attempt,
        "verdict": outcome.verdict,
        "open_findings": outcome.open_findings,
    }
    line = (
        f"approved attempt {outcome.attempt}"
        if outcome.decision == "approve"
        else f"changes requested on attempt {outcome.attempt}; attempt {outcome.next_attempt} "
        "starts with a fresh pass budget"
    )
    data["waived"] = outcome.waived
    data["unjudged"] = outcome.unjudged
    findings = _finding_lines(outcome.open_findings, outcome.waived)
    if outcome.decision == "approve" and findings:
        line += f" with {len(findings)} open finding(s):"
    if outcome.unjudged:  # a person approving must see what nothing checked
        findings.append(f"  not checked: {outcome.unjudged}")
    from aidlc_review.review.run.api import review_resets

    data["resets"] = resets = review_resets(args.workspace, args.unit, args.record, args.manifest)
    shown = [line, *findings] if outcome.decision == "approve" else [line]
    _emit(args, data, [*shown, *_reset_lines(resets)])
    return 0
