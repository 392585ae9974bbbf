"""``--output-format github`` for ``review run`` and ``review verify``: the unit's open
findings as GitHub workflow annotations, and why it is not approvable, as the gate proves
them now (``review.record.proof``), so a CI step shows them on the pull request's diff.

The same lines ``review summary --output-format github`` prints for each unit: an
``error`` for a blocking finding, a ``warning`` for a minor one, a ``notice`` for a waived
one, and an ``error`` on the run page for each reason the unit is not approvable.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the CLI imports this module at start-up: the review only when used
    from aidlc_review.review.inputs.paths import RecordPaths
    from aidlc_review.review.record.proof import Proof

FORMATS = ("text", "json", "github")


def add_output_format(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--output-format",
        choices=FORMATS,
        default=None,
        help="what stdout shows: text (the default), json (as --json) or github (workflow "
        "annotations of the open findings, on the pull request)",
    )


def output_format(args: argparse.Namespace) -> str:
    """The format asked for; ``--json`` is ``--output-format json`` (both at once only so)."""
    from aidlc_review.errors import InvalidInput

    chosen = getattr(args, "output_format", None)
    if args.json and chosen not in (None, "json"):
        raise InvalidInput(f"--json and --output-format {chosen}: choose one")
    return "json" if args.json else chosen or "text"


def unit_annotations(paths: RecordPaths, proof: Proof, reasons: list[str]) -> str:
    """The unit's open findings (its document's last pass) and ``reasons`` as annotations."""
    from aidlc_review.review.record.store import read_recorded
    from aidlc_review.review.report.annotations import render_annotations, render_reasons
    from aidlc_review.review.report.placement import unit_anchor

    found = read_recorded(paths)  # a record from elsewhere too: CI proves the pushed bytes
    doc = found.doc if found is not None else None
    current = doc.attempt_passes() if doc is not None else []
    shown = ""
    if doc is not None and current:
        opened = [f for f in current[-1].findings if f.status == "open"]
        shown = render_annotations(opened, unit_anchor(doc), proof.waived.keys())
    return shown + render_reasons(paths.unit or "stage", reasons)
