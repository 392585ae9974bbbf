"""``aidlc-review plan --scope S --mode M``: the resolved execution plan of one scope."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from aidlc_review.cli.options import add_harness, add_json

if TYPE_CHECKING:  # imported lazily at run time (a short command's start-up)
    from aidlc_review.compile.graph import StageGraph
    from aidlc_review.install.ledger import Ledger

MODES = ("gated", "autonomous")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "plan", help="show the stages, budgets and gates of a scope in a construction mode"
    )
    parser.add_argument("--scope", required=True, metavar="NAME", help="scope name, e.g. feature")
    parser.add_argument("--mode", required=True, choices=MODES, help="construction mode")
    add_harness(parser)
    add_json(parser)
    parser.set_defaults(handler=run)


def installed_ledger(args: argparse.Namespace) -> Ledger | None:
    """The plugin's ledger when the named harness is an upstream one it is installed in."""
    from aidlc_review.install.ledger import read_ledger

    return read_ledger(args.harness) if args.harness is not None else None


def load_plans(args: argparse.Namespace) -> tuple[StageGraph, dict[str, str | None]]:
    """(graph, {scope: review_cap}) of the harness the command names."""
    from aidlc_review.compile.build import STAGE_GRAPH, load_valid, pinned_numbers
    from aidlc_review.compile.plans import known_scopes
    from aidlc_review.harness.layout import HarnessLayout

    layout = HarnessLayout.at(args.harness)
    pins = pinned_numbers(layout.data_dir / STAGE_GRAPH) if layout.installed else None
    harness, graph, _ = load_valid(layout, strict=args.strict, pinned=pins)
    return graph, known_scopes(graph, harness.scopes)


def check_scope(name: str, caps: dict[str, str | None]) -> None:
    from aidlc_review.errors import InvalidInput
    from aidlc_review.harness.breadcrumbs import did_you_mean

    if name not in caps:
        raise InvalidInput(
            f"unknown scope {name!r}"
            + did_you_mean(name, caps)
            + f"; known scopes: {', '.join(caps)}"
        )


def run(args: argparse.Namespace) -> int:
    from aidlc_review.compile.plans import render_plan, resolve_plan
    from aidlc_review.fsio import dump_json

    graph, caps = load_plans(args)
    check_scope(args.scope, caps)
    ledger = installed_ledger(args)
    if ledger is not None:
        from aidlc_review.install.presented import presented_plan, render_presented

        shown = presented_plan(args.harness, ledger, args.scope, args.mode)
        sys.stdout.write(dump_json(shown) if args.json else render_presented(shown))
        return 0
    plan = resolve_plan(graph, args.scope, args.mode, caps[args.scope])
    sys.stdout.write(dump_json(plan.to_json()) if args.json else render_plan(plan))
    return 0
