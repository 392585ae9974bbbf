"""``aidlc-review review waive --unit U CR-007 --reason "..." [--expires DATE] [--by WHO]``.

Exit 0 with the verdict the waiver leaves, 1 when the finding may not be waived (a secret,
a critical security finding), 2 on bad input (nothing written). The waiver's text is checked
first (``review.record.waiver_text``), before the unit is resolved, loaded or locked.
"""

from __future__ import annotations

import argparse
import getpass
import sys
from collections.abc import Callable
from typing import Any


def register(
    verbs: argparse._SubParsersAction[argparse.ArgumentParser], verb: Callable[..., Any]
) -> None:
    parser = verb(
        verbs, "waive", "accept a finding on purpose (it stays visible, not blocking)", run
    )
    parser.add_argument("finding", metavar="CR-NNN", help="the finding's ID")
    parser.add_argument(
        "--reason", required=True, help="why it is accepted: one line, no secret (kept with it)"
    )
    parser.add_argument(
        "--expires",
        default=None,
        metavar="YYYY-MM-DD",
        help="last day the waiver holds; after it the finding blocks again",
    )
    parser.add_argument("--by", default=None, metavar="WHO", help="who accepts it (default: you)")


def run(args: argparse.Namespace) -> int:
    from datetime import date

    from aidlc_review.errors import InvalidInput
    from aidlc_review.review.inputs.paths import RecordPaths
    from aidlc_review.review.record.waive import waive_finding
    from aidlc_review.review.record.waiver_text import check_waiver_text
    from aidlc_review.waiver_rule import parse_day

    try:
        expires = parse_day(args.expires, "--expires") if args.expires else None
    except ValueError as exc:
        raise InvalidInput(str(exc)) from None
    by = args.by or getpass.getuser()
    check_waiver_text(args.reason, by)
    paths = RecordPaths.resolve(args.workspace, args.unit, args.record, args.manifest)
    doc = waive_finding(paths, args.finding, args.reason, by, expires, date.today())
    until = f" until {expires.isoformat()}" if expires else ""
    print(f"{args.finding} waived by {by}{until}; verdict {doc.verdict}", file=sys.stderr)
    if args.json:
        print(doc.model_dump_json(include={"verdict", "waivers"}, indent=2))
    return 0
