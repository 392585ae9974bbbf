"""``aidlc-review bolt``: the autonomous Bolt pipeline (run, status, gate, abandon), and
upstream's swarm reviewed before merge (land, settle: ``cli.bolt_land``)."""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from aidlc_review.cli import bolt_land
from aidlc_review.cli.options import (
    PRESETS_HELP,
    REPAIRER_METAVAR,
    REVIEWER_METAVAR,
    add_harness,
    add_json,
)

if TYPE_CHECKING:  # imported lazily at run time
    from aidlc_review.bolt.state import RunState, StateStore, UnitState

_PRINT_LOCK = threading.Lock()


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("bolt", help="autonomous Bolt: per-unit worktrees, review before merge")
    verbs = parser.add_subparsers(dest="bolt_command", metavar="VERB", parser_class=type(parser))
    verbs.required = True
    _add_run(verbs)
    _add_status_gate_abandon(verbs)
    bolt_land.register(verbs)  # upstream's swarm: land a unit, settle code review


def _add_run(verbs: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    run = verbs.add_parser("run", help="generate, review, finalize and merge every unit")
    _add_workspace(run)
    run.add_argument(
        "--units",
        type=Path,
        default=None,
        metavar="FILE",
        help="units file (YAML/JSON list of {name, depends_on}); none = one stage-level review",
    )
    run.add_argument("--developer", default=None, metavar="command:CMD", help="the developer agent")
    run.add_argument(
        "--reviewer",
        default="builtin",
        metavar=REVIEWER_METAVAR,
        help=f"who reviews each unit (default: builtin, no model; {PRESETS_HELP})",
    )
    run.add_argument(
        "--repairer",
        default=None,
        metavar=REPAIRER_METAVAR,
        help=f"the repair agent (default: the developer; {PRESETS_HELP})",
    )
    run.add_argument(
        "--base",
        default=None,
        metavar="REF",
        help="revision the units branch off (default: the target)",
    )
    run.add_argument(
        "--target",
        default=None,
        metavar="BRANCH",
        help="branch to merge into (default: the current one)",
    )
    run.add_argument(
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        metavar="N",
        help="units of one batch run in parallel (default: the number of cores)",
    )
    run.add_argument("--agent-timeout", type=float, default=600.0, metavar="SECONDS")
    add_harness(
        run,
        strict=False,
        help="harness with the code-review stage (default: this project's own root)",
    )
    run.add_argument(
        "--resume", action="store_true", help="continue the recorded run where it stopped"
    )
    add_json(run)
    run.set_defaults(handler=run_bolt)


def _add_status_gate_abandon(verbs: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    status = verbs.add_parser(
        "status", help="show the recorded run: every unit's state and findings"
    )
    _add_workspace(status)
    add_json(status)
    status.set_defaults(handler=show_status)

    gate = verbs.add_parser("gate", help="decide the aggregate gate (no reviewer runs)")
    _add_workspace(gate)
    decision = gate.add_mutually_exclusive_group(required=True)
    decision.add_argument(
        "--approve", action="store_true", help="merge and approve (all units, or --unit)"
    )
    decision.add_argument(
        "--request-changes", action="store_true", help="reopen --unit U for a fresh review attempt"
    )
    gate.add_argument("--unit", default=None, metavar="U")
    gate.add_argument(
        "--by",
        default=None,
        metavar="WHO",
        help="who decides, recorded with the time (default: git user.email, else the OS user)",
    )
    add_json(gate)
    gate.set_defaults(handler=decide_gate)

    abandon = verbs.add_parser(
        "abandon",
        help="give up the current run so a new one can start (state and worktrees are kept)",
    )
    _add_workspace(abandon)
    abandon.set_defaults(handler=abandon_run)


def _add_workspace(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--workspace",
        type=Path,
        default=Path("."),
        metavar="REPO",
        help="the git repository (default: the current directory)",
    )


def _progress(message: str) -> None:
    with _PRINT_LOCK:
        print(message, file=sys.stderr, flush=True)


def _emit(args: argparse.Namespace, state: RunState) -> None:
    """The run's summary, with what the guard finds wrong with the target and hooks now."""
    from aidlc_review.bolt.gate import render_summary, summary
    from aidlc_review.bolt.guard import alerts

    found = alerts(state)
    if args.json:
        print(json.dumps(summary(state, found), indent=2, sort_keys=True))
    else:
        print(render_summary(state, found))


def _store(workspace: Path) -> StateStore:
    from aidlc_review.bolt.git import Git
    from aidlc_review.bolt.state import bolt_root, open_store
    from aidlc_review.errors import InvalidInput

    if not workspace.is_dir():
        raise InvalidInput(f"--workspace {workspace}: not a directory")
    git = Git(workspace.resolve())
    if not git.succeeds("rev-parse", "--git-dir"):
        raise InvalidInput(f"--workspace {workspace}: not a git repository")
    return open_store(bolt_root(git.common_dir()))


@contextmanager
def _locked(workspace: Path) -> Iterator[None]:
    """One bolt command per repository at a time; a second one is refused, not queued."""
    from aidlc_review.bolt.git import Git
    from aidlc_review.bolt.state import bolt_root
    from aidlc_review.errors import LockBusy
    from aidlc_review.flock import FileLock, Timeout

    _require_repo(workspace)
    root = bolt_root(Git(workspace.resolve()).common_dir())
    root.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(root / "lock"), timeout=0)
    try:
        lock.acquire()
    except Timeout:
        raise LockBusy(
            f"{workspace}: another bolt command is running here ({lock.lock_file})"
        ) from None
    try:
        yield
    finally:
        lock.release()


def run_bolt(args: argparse.Namespace) -> int:
    from aidlc_review.bolt import pipeline
    from aidlc_review.bolt.units import UnitPlan, load_units
    from aidlc_review.errors import UsageError

    if args.jobs < 1:
        raise UsageError(f"--jobs {args.jobs}: must be at least 1")
    with _locked(args.workspace):
        if args.resume:
            _refuse_changes_on_resume(args)
            store = _store(args.workspace)
        else:
            if not args.developer:
                raise UsageError("bolt run: --developer command:CMD is required (unless --resume)")
            plan = load_units(args.units) if args.units else UnitPlan((), ())
            options = pipeline.RunOptions(
                workspace=args.workspace,
                developer=args.developer,
                reviewer=args.reviewer,
                repairer=args.repairer,
                base=args.base,
                target=args.target,
                agent_timeout=args.agent_timeout,
                harness=args.harness,
            )
            store = pipeline.start_run(options, plan, args.units)
            _progress(
                f"bolt run {store.state.id8}: {sum(map(len, plan.batches))} unit(s) "
                f"in {len(plan.batches)} batch(es), target {store.state.target}"
            )
        state = pipeline.drive(store, args.jobs, _progress)
    _emit(args, state)
    stopped = state.phase == "stopped"
    return 0 if not stopped and all(_settled(u) for u in state.units.values()) else 1


def _settled(unit: UnitState) -> bool:
    """Merged (or, for a stage-level run, reviewed) and either READY or approved at the gate."""
    landed = unit.status in ("merged", "reviewed")
    return landed and (unit.verdict == "READY" or unit.approved)


RECORDED_OPTIONS = ("units", "developer", "repairer", "base", "target", "harness")


def _refuse_changes_on_resume(args: argparse.Namespace) -> None:
    """A resumed run keeps what it was started with; only --jobs may differ."""
    from aidlc_review.errors import UsageError

    given = [f"--{name}" for name in RECORDED_OPTIONS if getattr(args, name) is not None]
    given += ["--reviewer"] if args.reviewer != "builtin" else []
    given += ["--agent-timeout"] if args.agent_timeout != 600.0 else []
    if given:
        raise UsageError(
            f"bolt run --resume continues the recorded run as it was started; "
            f"drop {', '.join(given)}"
        )


def _require_repo(workspace: Path) -> None:
    from aidlc_review.bolt.git import Git
    from aidlc_review.errors import InvalidInput

    if not workspace.is_dir() or not Git(workspace.resolve()).succeeds("rev-parse", "--git-dir"):
        raise InvalidInput(f"--workspace {workspace}: not a git repository")


def show_status(args: argparse.Namespace) -> int:
    _emit(args, _store(args.workspace).state)
    return 0


def decide_gate(args: argparse.Namespace) -> int:
    from aidlc_review.bolt import gate
    from aidlc_review.bolt.guard import RunStopped

    with _locked(args.workspace):
        store = _store(args.workspace)
        if args.approve:
            try:
                remaining = gate.approve(store, args.unit, _progress, args.by)
            except RunStopped as exc:
                _progress(f"{exc}\nthe gate approves nothing more until then")
                _emit(args, store.state)
                return 1
            for line in remaining:
                _progress(f"not merged: {line}")
        else:
            gate.request_changes(store, args.unit, args.by)
            _progress(
                f"reopened {args.unit or 'the stage'}; run 'bolt run --resume' to review it again"
            )
            remaining = []
    _emit(args, store.state)
    return 0 if not remaining else 1


def abandon_run(args: argparse.Namespace) -> int:
    from aidlc_review.bolt import pipeline

    with _locked(args.workspace):
        store = _store(args.workspace)
        pipeline.abandon(store)
    _progress(
        f"abandoned bolt run {store.state.id8}; its state and unit worktrees are kept in "
        f"{store.run_dir}"
    )
    return 0
