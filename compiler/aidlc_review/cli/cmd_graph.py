"""``aidlc-review graph``: questions about the stage graph."""

from __future__ import annotations

import argparse
import json

from aidlc_review.cli.options import add_harness, add_json


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("graph", help="query the stage graph")
    queries = parser.add_subparsers(dest="query", metavar="QUERY")
    queries.required = True
    for name, helptext in (
        ("producers", "stages producing ARTIFACT"),
        ("consumers", "stages consuming ARTIFACT"),
    ):
        query = queries.add_parser(name, help=helptext)
        query.add_argument("artifact", metavar="ARTIFACT")
        _common(query)
    _common(queries.add_parser("topo", help="all stages in display-number order"))
    _common(queries.add_parser("cycles", help="requires_stage cycles (exit 1 when any)"))
    scope = queries.add_parser("scope", help="the stages a scope executes")
    scope.add_argument("name", metavar="NAME")
    _common(scope)


def _common(parser: argparse.ArgumentParser) -> None:
    add_harness(parser)
    add_json(parser)
    parser.set_defaults(handler=run)


def _emit(args: argparse.Namespace, rows: list[str], data: object = None) -> None:
    if args.json:
        print(json.dumps(rows if data is None else data, indent=2))
    else:
        for row in rows:
            print(row)


def run(args: argparse.Namespace) -> int:
    from aidlc_review.harness.layout import HarnessLayout

    layout = HarnessLayout.at(args.harness)
    if args.query == "cycles":
        return _cycles(args, layout)

    from aidlc_review.compile.build import load_valid
    from aidlc_review.errors import InvalidInput

    harness, graph, _ = load_valid(layout, args.strict)
    numbers = graph.numbers()
    if args.query == "producers":
        _emit(args, graph.producers_of(args.artifact))
    elif args.query == "consumers":
        _emit(args, graph.consumers_of(args.artifact))
    elif args.query == "topo":
        slugs = graph.topo()
        _emit(
            args,
            [f"{numbers[s]}\t{s}" for s in slugs],
            [{"number": numbers[s], "slug": s} for s in slugs],
        )
    else:
        known = {s.name for s in harness.scopes} | {sc for s in harness.stages for sc in s.scopes}
        if args.name not in known:
            from aidlc_review.harness.breadcrumbs import did_you_mean

            raise InvalidInput(f"unknown scope {args.name!r}{did_you_mean(args.name, known)}")
        stages = [s.slug for s in graph.scope_stages(args.name)]
        _emit(
            args,
            [f"{numbers[s]}\t{s}" for s in stages],
            [{"number": numbers[s], "slug": s} for s in stages],
        )
    return 0


def _cycles(args: argparse.Namespace, layout: object) -> int:
    from aidlc_review.compile.graph import StageGraph
    from aidlc_review.errors import ValidationFailed
    from aidlc_review.harness.loader import load_harness

    harness = load_harness(layout)  # type: ignore[arg-type]
    if harness.diagnostics:
        raise ValidationFailed(harness.diagnostics)
    cycles = StageGraph(harness.stages).cycles()
    _emit(args, [" --> ".join([*c, c[0]]) for c in cycles], cycles)
    return 1 if cycles else 0
