"""``aidlc-review scope show|add|remove``: decide where stages run without hand-editing YAML."""

from __future__ import annotations

import argparse
import sys

from aidlc_review.cli.options import add_harness, add_json

DISPLAY_ROOT = ".claude"


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("scope", help="show scopes, or add/remove a stage from a scope")
    actions = parser.add_subparsers(
        dest="scope_action", metavar="ACTION", parser_class=type(parser)
    )
    actions.required = True
    show = actions.add_parser(
        "show", help="which stages execute in a scope, with their gates and budgets"
    )
    show.add_argument(
        "name", nargs="?", metavar="NAME", help="one scope (default: an overview of all)"
    )
    add_harness(show)
    add_json(show)
    show.set_defaults(handler=run_show)
    for action, verb in (("add", "execute in"), ("remove", "stop executing in")):
        edit = actions.add_parser(action, help=f"make STAGE {verb} SCOPE, validate, and recompile")
        edit.add_argument("stage", metavar="STAGE")
        edit.add_argument("scope", metavar="SCOPE")
        add_harness(edit)
        edit.set_defaults(handler=run_edit, action=action)


def run_show(args: argparse.Namespace) -> int:
    from aidlc_review.cli.cmd_plan import check_scope, load_plans
    from aidlc_review.definitions.stage import CONSTRUCTION_MODES
    from aidlc_review.fsio import dump_json
    from aidlc_review.plans import render_overview, render_plan, resolve_plan

    graph, caps = load_plans(args)
    if args.name is not None:
        check_scope(args.name, caps)
    names = [args.name] if args.name else list(caps)
    plans = {n: {m: resolve_plan(graph, n, m, caps[n]) for m in CONSTRUCTION_MODES} for n in names}
    if args.json:
        doc = {n: {m: p.to_json() for m, p in by_mode.items()} for n, by_mode in plans.items()}
        sys.stdout.write(dump_json(doc))
    elif args.name:
        sys.stdout.write("\n".join(render_plan(p) for p in plans[args.name].values()))
    else:
        review_stages = [s.slug for s in graph.ordered() if s.reviews]
        sys.stdout.write(render_overview(plans, review_stages))
    return 0


def run_edit(args: argparse.Namespace) -> int:
    from aidlc_review import stamp
    from aidlc_review.build import compile_harness
    from aidlc_review.fsio import write_atomic
    from aidlc_review.layout import HarnessLayout
    from aidlc_review.scope_edit import edit_stage_scopes

    layout = HarnessLayout.at(args.harness)
    edit = edit_stage_scopes(layout, args.stage, args.scope, args.action)
    print(edit.message, file=sys.stderr)
    if not edit.changed:
        return 0
    result = compile_harness(layout, DISPLAY_ROOT, strict=args.strict)
    for name, text in result.outputs.items():
        write_atomic(layout.data_dir / name, text)
    stamp.record(
        layout,
        layout.data_dir,
        {"display_root": DISPLAY_ROOT, "strict": args.strict},
        list(result.outputs),
    )
    print(f"recompiled {len(result.graph.slugs)} stages into {layout.data_dir}", file=sys.stderr)
    return 0
