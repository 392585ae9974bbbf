"""``aidlc-review review summary --from DIR...``: per-unit findings merged into the aggregate gate.

Exit 0 when every unit is READY, 1 when one is not, 2 on bad input (nothing written).
What stdout shows is an entry of ``OUTPUT_FORMATS``: the Markdown summary (``text``), the
gate as JSON (``json``, also ``--json``) or GitHub workflow annotations (``github``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from aidlc_review.cli.options import add_json
from aidlc_review.cli.review_annotate import output_format

Documents = dict[str, tuple[Path, Any]]  # unit -> (findings file, FindingsDocument)


def register(verbs: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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
    parser.add_argument(
        "--output-format",
        choices=sorted(OUTPUT_FORMATS),
        default=None,
        help="what stdout shows: text (the Markdown summary, the default), json (as --json) "
        "or github (workflow annotations on the pull request)",
    )
    add_json(parser)
    parser.set_defaults(handler=run)


def _as_text(gate: dict[str, Any], docs: Documents, markdown: str) -> str:
    return markdown


def _as_json(gate: dict[str, Any], docs: Documents, markdown: str) -> str:
    from aidlc_review.fsio import dump_json

    return dump_json(gate)


def _as_github(gate: dict[str, Any], docs: Documents, markdown: str) -> str:
    """Each unit's open findings (as the gate proved them) and why it is not approvable."""
    from aidlc_review.review.record.models import Finding
    from aidlc_review.review.report.annotations import render_annotations, render_reasons
    from aidlc_review.review.report.placement import unit_anchor

    shown = []
    for entry in gate["units"]:
        findings = [Finding.model_validate(f) for f in entry["open_findings"]]
        anchor = unit_anchor(docs[entry["unit"]][1])
        shown.append(render_annotations(findings, anchor, entry["waived"]))
        shown.append(render_reasons(entry["unit"], entry["reasons"]))
    return "".join(shown)


OUTPUT_FORMATS: dict[str, Callable[[dict[str, Any], Documents, str], str]] = {
    "text": _as_text,
    "json": _as_json,
    "github": _as_github,
}


def _writable(option: str, path: Path | None) -> None:
    from aidlc_review.errors import InvalidInput

    if path is not None and (path.is_dir() or not path.parent.is_dir()):
        raise InvalidInput(f"{option} {path}: not a file in an existing directory")


def run(args: argparse.Namespace) -> int:
    from aidlc_review.ci.merge import aggregate_gate, collect_documents
    from aidlc_review.ci.report import append_summary, render_markdown, write_merged_sarif
    from aidlc_review.cli.path_checks import check_summary_outputs, writing

    shown = OUTPUT_FORMATS[output_format(args)]
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
    sys.stdout.write(shown(gate, docs, text))
    from aidlc_review.hooks.approvals import unbacked_approvals

    named = unbacked_approvals(args.workspace) if args.workspace is not None else []
    for line in named:  # an approval upstream recorded past the plugin fails the CI gate
        print(f"aidlc-review: {line}", file=sys.stderr)
    return 0 if gate["verdict"] == "READY" and not named else 1
