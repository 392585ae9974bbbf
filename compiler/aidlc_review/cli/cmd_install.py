"""``aidlc-review install --harness DIR``: add the code-review plugin to an AI-DLC harness."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("install", help="install the code-review stage into an AI-DLC harness")
    parser.add_argument(
        "--harness", type=Path, required=True, metavar="DIR", help="the installed harness to change"
    )
    parser.add_argument("--dry-run", action="store_true", help="print the diff and change nothing")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from aidlc_review.install import apply_install, plan_install

    plan = plan_install(args.harness)
    for kept in plan.kept:
        print(f"kept the harness's own {kept}", file=sys.stderr)
    if not plan.changes:
        print(f"already installed in {plan.root}; nothing to change", file=sys.stderr)
        return 0
    sys.stdout.write(plan.diff())
    if args.dry_run:
        print(
            f"dry run: {len(plan.changes)} file(s) would change; nothing written", file=sys.stderr
        )
        return 0
    apply_install(plan)
    print(
        f"installed into {plan.root}: {len(plan.changes)} file(s) changed; "
        f"run: aidlc-review compile --harness {args.harness}",
        file=sys.stderr,
    )
    return 0
