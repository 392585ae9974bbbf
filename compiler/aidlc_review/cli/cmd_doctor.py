"""``aidlc-review doctor``: what this installation finds (definitions, harness, tools, record)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from aidlc_review.cli.options import add_harness, add_json


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "doctor",
        help="show the harness, engine tools, sensor tools and active record found "
        "(exit 1 when an upgrade broke the plugin's install)",
    )
    add_harness(
        parser,
        strict=False,
        help="harness directory (default: <workspace>/.claude "
        "when it is an AI-DLC harness, else the plugin's own definitions)",
    )
    parser.add_argument(
        "--workspace",
        type=Path,
        default=Path("."),
        metavar="DIR",
        help="project directory (default: the current one)",
    )
    add_json(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from aidlc_review.doctor.facts import diagnose
    from aidlc_review.doctor.render import render_doctor
    from aidlc_review.fsio import dump_json
    from aidlc_review.hooks.approvals import unbacked_approvals

    facts = diagnose(args.workspace.resolve(), args.harness)
    facts["unbacked_approvals"] = unbacked_approvals(args.workspace)
    text = render_doctor(facts)
    text += "".join(f"problem: {line}\n" for line in facts["unbacked_approvals"])
    sys.stdout.write(dump_json(facts) if args.json else text)
    return 1 if facts["harness"].get("install_broken") or facts["unbacked_approvals"] else 0
