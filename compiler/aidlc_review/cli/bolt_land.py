"""``aidlc-review bolt land`` / ``bolt settle``: upstream's swarm, reviewed before merge.

``land`` merges one unit's reviewed bytes from its swarm worktree into the main workspace
(after ``aidlc-swarm.ts finalize``); ``settle`` records upstream's code-review receipts once
every unit's review verifies READY in the main workspace. Exit 0 when done, 1 when refused.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from aidlc_review.cli.options import add_json


def register(verbs: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    land = verbs.add_parser(
        "land",
        help="merge a swarm unit's reviewed bytes from its worktree (after upstream's finalize)",
    )
    _add_workspace(land)
    land.add_argument("--unit", required=True, metavar="U", help="the unit (worktree bolt-<U>)")
    add_json(land)
    land.set_defaults(handler=land_bolt)

    settle = verbs.add_parser(
        "settle",
        help="record upstream's code-review receipts for units reviewed before they merged",
    )
    _add_workspace(settle)
    add_json(settle)
    settle.set_defaults(handler=settle_bolts)


def _add_workspace(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--workspace",
        type=Path,
        default=Path("."),
        metavar="DIR",
        help="the project's main checkout (default: the current directory)",
    )


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def land_bolt(args: argparse.Namespace) -> int:
    from aidlc_review.bolt.land import land_unit

    landed = land_unit(args.workspace, args.unit, _say)
    if args.json:
        data = {
            "unit": landed.unit,
            "target": landed.target,
            "commit": landed.commit,
            "paths": landed.paths,
        }
        print(json.dumps(data, indent=2, sort_keys=True))
    elif landed.commit is None:
        print(f"{landed.unit}: landed before; its review verifies here")
    else:
        print(f"{landed.unit}: landed in {landed.target} as {landed.commit}")
    return 0


def settle_bolts(args: argparse.Namespace) -> int:
    from aidlc_review.bolt.settle import settle_reviews

    settled = settle_reviews(args.workspace, _say)
    if args.json:
        data = {"recorded": settled.recorded, "units": settled.units}
        print(json.dumps(data, indent=2, sort_keys=True))
    else:
        for unit, reasons in settled.units.items():
            print(f"{unit}: {'READY here' if not reasons else 'does not hold here'}")
            print("".join(f"  {reason}\n" for reason in reasons), end="")
        if not settled.recorded:
            print("nothing recorded: code-review cannot be approved until every unit holds")
    return 0 if settled.recorded else 1
