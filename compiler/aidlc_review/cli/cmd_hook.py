"""``aidlc-review hook``: what the pre-commit hooks run (see ``.pre-commit-hooks.yaml``).

``verify`` exits 1 naming each reviewed unit whose review is stale; ``sensors`` exits 1 when
a check on the staged files a unit claims has a blocking finding. ``engine-gate`` is the
Claude Code PreToolUse hook install registers in an upstream project: it reads the hook's
JSON on stdin and exits 2 with the reason on stderr to refuse the command (Claude Code's
blocking exit), 0 to let it run.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from aidlc_review.cli.options import add_harness

# Claude Code's blocking exit for a PreToolUse hook: the call is refused, stderr goes to
# Claude. Any other non-zero exit is a hook error and the call would go ahead.
CLAUDE_CODE_REFUSES = 2


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("hook", help="the checks the pre-commit hooks run")
    verbs = parser.add_subparsers(dest="hook_command", metavar="VERB")
    verbs.required = True
    verify = verbs.add_parser("verify", help="fail while any reviewed unit's review is stale")
    verify.add_argument("--record", type=Path, default=None, metavar="DIR")
    sensors = verbs.add_parser("sensors", help="the sensors on staged files a unit claims")
    add_harness(sensors, strict=False)
    sensors.add_argument("--sensor", action="append", default=None, metavar="ID")
    units = verbs.add_parser("units", help="the units whose claims or record a change touches")
    units.add_argument("--record", type=Path, default=None, metavar="DIR")
    units.add_argument(
        "--changed-from",
        type=Path,
        default=None,
        metavar="FILE",
        help="changed paths, one a line (git diff --name-only); omit: every unit",
    )
    units.add_argument("--json", action="store_true", help="print a JSON array (for a matrix)")
    units.set_defaults(handler=run_units)
    for verb in (verify, sensors, units):
        verb.add_argument("--workspace", type=Path, default=Path("."), metavar="DIR")
        verb.add_argument("files", nargs="*", metavar="FILE", help="staged files (pre-commit)")
    verify.set_defaults(handler=run_verify)
    sensors.set_defaults(handler=run_sensors_hook)
    gate = verbs.add_parser(
        "engine-gate",
        help="Claude Code PreToolUse hook: refuse code-review receipts and unverified approval",
    )
    gate.add_argument("--workspace", type=Path, default=Path("."), metavar="DIR")
    gate.set_defaults(handler=run_engine_gate)


def _workspace(path: Path) -> Path:
    from aidlc_review.errors import InvalidInput

    if not path.is_dir():
        raise InvalidInput(f"--workspace {path}: not a directory")
    return path.resolve()


def run_verify(args: argparse.Namespace) -> int:
    from aidlc_review.hooks.stale import stale_units

    stale = stale_units(_workspace(args.workspace), args.record)
    for unit, reasons in stale.items():
        print(f"{unit}: the code review is stale; re-run `aidlc-review review run --unit {unit}`")
        print("".join(f"  {reason}\n" for reason in reasons), end="")
    return 1 if stale else 0


def run_sensors_hook(args: argparse.Namespace) -> int:
    from aidlc_review.hooks.staged import sensors_on_staged

    def say(message: str) -> None:
        print(message, file=sys.stderr)

    workspace = _workspace(args.workspace)
    results = sensors_on_staged(workspace, args.files, args.harness, args.sensor, say)
    blocking = False
    for unit, checks in results.items():
        for check in checks:
            blocking = blocking or check.blocking
            print(f"{unit}: {check.name}: {check.status}")
            for f in check.findings:
                where = f"{f.path}:{f.line}" if f.line else (f.path or "-")
                print(f"  {f.severity:<8} {where}: {f.message}")
    return 1 if blocking else 0


def run_units(args: argparse.Namespace) -> int:
    import json

    from aidlc_review.errors import InvalidInput
    from aidlc_review.hooks.units import recorded_units, touched_units

    workspace = _workspace(args.workspace)
    if args.changed_from is None:
        names = list(recorded_units(workspace, args.record))
    else:
        if not args.changed_from.is_file():
            raise InvalidInput(f"--changed-from {args.changed_from}: no such file")
        text = args.changed_from.read_text(encoding="utf-8")
        changed = [*args.files, *(line.strip() for line in text.splitlines() if line.strip())]
        names = touched_units(workspace, args.record, changed)
    print(json.dumps(names) if args.json else "\n".join(names))
    return 0


def run_engine_gate(args: argparse.Namespace) -> int:
    from aidlc_review.hooks.engine_gate import gate_hook_input

    workspace = args.workspace.resolve()
    decision = gate_hook_input(sys.stdin.read(), workspace)
    if decision.allowed:
        return 0
    print(decision.reason, file=sys.stderr)
    return CLAUDE_CODE_REFUSES
