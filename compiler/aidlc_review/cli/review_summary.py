"""``aidlc-review review summary --from DIR...``: per-unit findings merged into the aggregate gate.

Exit 0 when every unit is READY, 1 when one is not, 2 on bad input (nothing written).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from aidlc_review.cli.options import add_json


def register(verbs: argparse._SubParsersAction) -> None:
    parser = verbs.add_parser(
        "summary", help="merge per-unit findings (e.g. CI job artifacts) into the aggregate gate"
    )
    parser.add_argument(
        "--from",
        dest="sources",
        type=Path,
        nargs="+",
        required=True,
        metavar="DIR",
        help="folders searched for code-review-findings.json",
    )
    parser.add_argument(
        "--markdown",
        type=Path,
        default=None,
        metavar="FILE",
        help="append the summary as Markdown (e.g. $GITHUB_STEP_SUMMARY)",
    )
    parser.add_argument(
        "--sarif",
        type=Path,
        default=None,
        metavar="FILE",
        help="write one SARIF log with a run per unit",
    )
    parser.add_argument(
        "--workspace",
        type=Path,
        default=Path("."),
        metavar="DIR",
        help="the checkout each unit's review is proven against (default: .)",
    )
    parser.add_argument(
        "--record", type=Path, default=None, metavar="DIR", help="the record dir (default: found)"
    )
    add_json(parser)
    parser.set_defaults(handler=run)


def _writable(option: str, path: Path | None) -> None:
    from aidlc_review.errors import InvalidInput

    if path is not None and (path.is_dir() or not path.parent.is_dir()):
        raise InvalidInput(f"{option} {path}: not a file in an existing directory")


def run(args: argparse.Namespace) -> int:
    from aidlc_review.ci.merge import aggregate_gate, collect_documents
    from aidlc_review.ci.report import append_summary, render_markdown, write_merged_sarif
    from aidlc_review.cli.path_checks import check_summary_outputs, writing
    from aidlc_review.fsio import dump_json

    _writable("--markdown", args.markdown)
    _writable("--sarif", args.sarif)
    outputs = {"--markdown": args.markdown, "--sarif": args.sarif}
    check_summary_outputs(outputs, args.sources, args.workspace, args.record)
    docs = collect_documents(args.sources)
    gate = aggregate_gate(docs, workspace=args.workspace, record=args.record)
    text = render_markdown(gate)
    # the append first: it can fail half way (a full device); a failed atomic write leaves nothing
    if args.markdown is not None:
        with writing("--markdown", args.markdown):
            append_summary(args.markdown, text)
    if args.sarif is not None:
        with writing("--sarif", args.sarif):
            write_merged_sarif(args.sarif, docs)
    sys.stdout.write(dump_json(gate) if args.json else text)
    return 0 if gate["verdict"] == "READY" else 1
