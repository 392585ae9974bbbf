"""``aidlc-review scope show|add|remove``: decide where stages run without hand-editing YAML."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from aidlc_review.cli.options import add_harness, add_json

if TYPE_CHECKING:
    from pathlib import Path

    from aidlc_review.install.ledger import Ledger

DISPLAY_ROOT = ".claude"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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
    from aidlc_review.cli.cmd_plan import check_scope, installed_ledger, load_plans
    from aidlc_review.compile.plans import render_overview, render_plan, resolve_plan
    from aidlc_review.fsio import dump_json
    from aidlc_review.harness.definitions.stage import CONSTRUCTION_MODES

    graph, caps = load_plans(args)
    if args.name is not None:
        check_scope(args.name, caps)
    ledger = installed_ledger(args)
    if ledger is not None:
        return _show_installed(args, ledger, [args.name] if args.name else list(caps))
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


def _show_installed(args: argparse.Namespace, ledger: Ledger, names: list[str]) -> int:
    """Upstream's view of each scope: what runs, and the gates upstream presents per mode."""
    from aidlc_review.fsio import dump_json
    from aidlc_review.harness.definitions.stage import CONSTRUCTION_MODES
    from aidlc_review.install.presented import presented_plan, render_presented

    plans = {
        n: {m: presented_plan(args.harness, ledger, n, m) for m in CONSTRUCTION_MODES}
        for n in names
    }
    if args.json:
        sys.stdout.write(dump_json(plans))
        return 0
    for name in names:
        if len(names) == 1:
            sys.stdout.write("".join(render_presented(p) for p in plans[name].values()))
            continue
        gated = plans[name]["gated"]
        runs = (
            "runs code-review"
            if any(s["slug"] == ledger.stage.slug for s in gated["stages"])
            else "no code-review"
        )
        print(
            f"{name:<16} {len(gated['stages']):>3} stages  {runs:<16} "
            f"gates upstream presents: {gated['gates_presented']}"
        )
    return 0


def run_edit(args: argparse.Namespace) -> int:
    from aidlc_review.cli.options import refuse_packaged_edit
    from aidlc_review.compile import stamp
    from aidlc_review.compile.build import STAGE_GRAPH, compile_harness, pinned_numbers
    from aidlc_review.fsio import write_atomic
    from aidlc_review.harness.layout import HarnessLayout
    from aidlc_review.install.scope_edit import edit_stage_scopes

    refuse_packaged_edit(args.harness, f"scope {args.action}")
    layout = HarnessLayout.at(args.harness)
    if layout.installed and args.stage == "code-review" and _installed(layout.root):
        return _edit_installed_review(args, layout.root)
    edit = edit_stage_scopes(layout, args.stage, args.scope, args.action)
    print(edit.message, file=sys.stderr)
    if not edit.changed:
        return 0
    pins = pinned_numbers(layout.data_dir / STAGE_GRAPH) if layout.installed else None
    result = compile_harness(layout, DISPLAY_ROOT, strict=args.strict, pinned=pins)
    for name, text in result.outputs.items():
        write_atomic(layout.data_dir / name, text)
    options = {"display_root": DISPLAY_ROOT, "strict": args.strict}
    target = stamp.Target(str(layout.root), str(layout.stages_dir), str(layout.data_dir), options)
    stamp.record(target, list(result.outputs))
    print(f"recompiled {len(result.graph.slugs)} stages into {layout.data_dir}", file=sys.stderr)
    if layout.installed:
        from aidlc_review.cli.cmd_install import regenerate

        return regenerate(layout.root)
    return 0


def _installed(harness: Path) -> bool:
    from aidlc_review.install.ledger import read_ledger

    return read_ledger(harness) is not None


def _edit_installed_review(args: argparse.Namespace, harness: Path) -> int:
    """A lead's choice for the installed code-review: kept in the ledger, applied by a
    re-install, so that later re-installs and upgrades keep it."""
    from aidlc_review.cli.cmd_install import commit
    from aidlc_review.install.ledger import read_ledger
    from aidlc_review.install.plan import plan_install
    from aidlc_review.install.unit_scopes import refuse_unreviewed_scope

    ledger = read_ledger(harness)
    assert ledger is not None
    scopes = list(ledger.scopes)
    if args.action == "add" and args.scope not in scopes:
        scopes.append(args.scope)
    elif args.action == "remove" and args.scope in scopes:
        scopes.remove(args.scope)
    else:
        state = "already executes" if args.action == "add" else "does not execute"
        print(f"code-review {state} in scope {args.scope}; nothing to change", file=sys.stderr)
        return 0
    plan = plan_install(harness, chosen_scopes=scopes)  # refused where code-generation is not
    if args.action == "add":
        refuse_unreviewed_scope(args.stage, args.scope)
    verb = "now executes in" if args.action == "add" else "no longer executes in"
    return commit(plan, f"code-review {verb} scope {args.scope} (kept in the plugin's ledger)")
