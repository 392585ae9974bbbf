"""``aidlc-review install|uninstall --harness DIR``: put the plugin into an upstream project
(or take it out), then let upstream's own generators rebuild what they derive."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def register(sub: argparse._SubParsersAction) -> None:
    for verb, what in (
        ("install", "add the code-review stage to an upstream AI-DLC project's harness"),
        ("uninstall", "remove exactly what install added"),
    ):
        parser = sub.add_parser(verb, help=what)
        parser.add_argument(
            "--harness", type=Path, required=True, metavar="DIR", help="the harness (.claude)"
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="print the diff and change nothing"
        )
        parser.set_defaults(handler=run_install if verb == "install" else run_uninstall)


def run_install(args: argparse.Namespace) -> int:
    from aidlc_review.install.plan import plan_install

    plan = plan_install(args.harness)
    return _carry_out(plan, args, "installed into")


def run_uninstall(args: argparse.Namespace) -> int:
    from aidlc_review.install.uninstall import plan_uninstall

    plan = plan_uninstall(args.harness)
    return _carry_out(plan, args, "uninstalled from")


def _carry_out(plan: Any, args: argparse.Namespace, done: str) -> int:
    from aidlc_review.install.plan import apply_changes

    if not plan.changes:
        print(f"nothing to change in {plan.root}", file=sys.stderr)
        return 0
    sys.stdout.write(plan.diff())
    if args.dry_run:
        print(
            f"dry run: {len(plan.changes)} file(s) would change; nothing written", file=sys.stderr
        )
        return 0
    apply_changes(plan)
    print(f"{done} {plan.root}: {len(plan.changes)} file(s) changed", file=sys.stderr)
    return regenerate(plan.root)


def regenerate(harness: Path) -> int:
    """Run upstream's generators; without bun, say exactly what to run and exit 1."""
    from aidlc_review.install.upstream import Engine, find_bun

    engine = Engine.of(harness)
    if not engine.present:
        return 0
    bun = find_bun()
    if bun is None:
        print(
            "bun was not found (set AIDLC_BUN or put bun on PATH); the stage tables and "
            f"runners are not regenerated yet. In {engine.project}, run:",
            file=sys.stderr,
        )
        for argv in engine.commands():
            print("  " + " ".join(argv), file=sys.stderr)
        print(
            "  (splice the two table outputs into skills/aidlc/SKILL.md between their markers)",
            file=sys.stderr,
        )
        return 1
    engine.regenerate(bun)
    print(
        "regenerated with upstream's tools: "
        + "; ".join(" ".join(a[1:]) for a in engine.commands()),
        file=sys.stderr,
    )
    return 0
