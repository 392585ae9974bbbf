"""``aidlc-review install|uninstall --harness DIR``: put the plugin into an upstream project
(or take it out), then let upstream's own generators rebuild what they derive."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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
        if verb == "install":
            parser.add_argument(
                "--force",
                action="store_true",
                help="install into an engine newer than the verified ones (still judged by "
                "upstream's compile and doctor, and rolled back if they object)",
            )
        parser.set_defaults(handler=run_install if verb == "install" else run_uninstall)


def run_install(args: argparse.Namespace) -> int:
    from aidlc_review.install.plan import plan_install

    plan = plan_install(args.harness, force=args.force)
    return _carry_out(plan, args, "installed into")


def run_uninstall(args: argparse.Namespace) -> int:
    from aidlc_review.install.uninstall import plan_uninstall

    plan = plan_uninstall(args.harness)
    return _carry_out(plan, args, "uninstalled from")


def _carry_out(plan: Any, args: argparse.Namespace, done: str) -> int:
    for note in plan.notes:
        print(f"note: {note}", file=sys.stderr)
    if not plan.changes:
        print(f"nothing to change in {plan.root}", file=sys.stderr)
        return 0
    sys.stdout.write(plan.diff())
    if args.dry_run:
        print(
            f"dry run: {len(plan.changes)} file(s) would change; nothing written", file=sys.stderr
        )
        return 0
    return commit(plan, f"{done} {plan.root}: {len(plan.changes)} file(s) changed")


def commit(plan: Any, message: str) -> int:
    """Write the plan. In a project with upstream's engine and bun this is a transaction:
    upstream's generators and doctor judge the result, and an objection restores every
    byte (exit 1, quoting upstream; ``install.transaction``)."""
    from aidlc_review.install.plan import apply_changes
    from aidlc_review.install.transaction import commit_checked
    from aidlc_review.upstream.tools import Engine, find_bun

    engine = Engine.of(plan.root)
    bun = find_bun() if engine.present else None
    if bun is None:
        apply_changes(plan)
        print(message, file=sys.stderr)
        return regenerate(plan.root)
    commit_checked(plan, bun)
    print(message, file=sys.stderr)
    print(_regenerated(engine) + "; upstream's doctor found nothing new", file=sys.stderr)
    return 0


def _regenerated(engine: Any) -> str:
    return "regenerated with upstream's tools: " + "; ".join(
        " ".join(a[1:]) for a in engine.commands()
    )


def regenerate(harness: Path) -> int:
    """Run upstream's generators; without bun, say exactly what to run and exit 1."""
    from aidlc_review.upstream.tools import Engine, find_bun

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
    print(_regenerated(engine), file=sys.stderr)
    return 0
