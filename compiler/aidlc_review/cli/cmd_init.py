"""``aidlc-review init [--unit U] PATH...``: claim source for review on a plain project."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "init",
        help="claim files for review: write the source manifest and the [tool.aidlc-review] "
        "table, and print the pre-commit snippet",
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="files or folders to review")
    parser.add_argument(
        "--unit", default=None, metavar="U", help="unit of work (omit: one stage-level claim)"
    )
    parser.add_argument(
        "--workspace", type=Path, default=Path("."), metavar="DIR",
        help="the project directory (default: the current one)",
    )  # fmt: skip
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from aidlc_review.adopt.init import PRE_COMMIT, init_workspace

    done = init_workspace(args.workspace, args.unit, args.paths)
    print(f"wrote {done.manifest}: {done.claimed} file(s) claimed")
    kept = "written" if done.settings_written else "kept as it was"
    print(f"{done.settings}: [tool.aidlc-review] {kept}")
    print(f"test command: {done.test_command or 'none (coverage is skipped until one is set)'}")
    unit = f" --unit {args.unit}" if args.unit else ""
    where = "" if args.workspace == Path(".") else f" --workspace {args.workspace}"
    print(f"next: aidlc-review review run{where}{unit}")
    print("pre-commit (.pre-commit-config.yaml), to keep reviews fresh at each commit:")
    sys.stdout.write(PRE_COMMIT)
    return 0
