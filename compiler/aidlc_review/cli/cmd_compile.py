"""``aidlc-review compile``: build stage-graph.json and scope-grid.json (and plans)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from aidlc_review.cli.options import add_harness

DEFAULT_DISPLAY_ROOT = ".claude"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("compile", help="compile the harness's stage graph and scope grid")
    add_harness(parser)
    parser.add_argument(
        "--display-root",
        default=DEFAULT_DISPLAY_ROOT,
        metavar="PREFIX",
        help="prefix of manifest paths in the output (default: .claude)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        metavar="DIR",
        help="output directory (default: <harness>/tools/data)",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="compare with the files on disk; print a diff and exit 1 on drift",
    )
    parser.set_defaults(handler=run)


def _fix_command(args: argparse.Namespace) -> str:
    parts = ["aidlc-review", "compile"]
    if args.harness is not None:
        parts += ["--harness", str(args.harness)]
    if args.display_root != DEFAULT_DISPLAY_ROOT:
        parts += ["--display-root", args.display_root]
    if args.out is not None:
        parts += ["--out", str(args.out)]
    if args.strict:
        parts.append("--strict")
    return " ".join(parts)


def run(args: argparse.Namespace) -> int:
    from aidlc_review.compile import stamp
    from aidlc_review.harness.layout import HarnessLayout

    layout = HarnessLayout.at(args.harness)
    out = args.out or layout.data_dir
    options = {"display_root": args.display_root, "strict": args.strict}
    target = stamp.Target(str(layout.root), str(layout.stages_dir), str(out), options)
    stamp.check_stamp_dir()
    if args.check and stamp.is_up_to_date(target):
        return 0

    from aidlc_review.cli.options import refuse_packaged_edit
    from aidlc_review.compile.build import STAGE_GRAPH, compile_harness, pinned_numbers
    from aidlc_review.fsio import write_atomic

    if not args.check and args.out is None:
        refuse_packaged_edit(args.harness, "compile")

    pinned = pinned_numbers(out / STAGE_GRAPH)
    result = compile_harness(layout, args.display_root, strict=args.strict, pinned=pinned)
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if args.check:
        from aidlc_review.compile.drift import report_drift

        drift = report_drift(out, result.outputs)
        if drift:
            sys.stdout.write(drift)
            print(
                f"\ncompiled outputs are out of date; fix with: {_fix_command(args)}",
                file=sys.stderr,
            )
            return 1
        stamp.record(target, list(result.outputs))
        return 0
    for name, text in result.outputs.items():
        write_atomic(out / name, text)
    stamp.record(target, list(result.outputs))
    print(f"compiled {len(result.graph.slugs)} stages into {out}", file=sys.stderr)
    return 0
