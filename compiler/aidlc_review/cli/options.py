"""Options several commands share."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_harness(
    parser: argparse.ArgumentParser,
    *,
    strict: bool = True,
    help: str = "harness directory (default: this project's own root)",
) -> None:
    """``--harness DIR`` (and, for commands that validate the whole harness, ``--strict``)."""
    parser.add_argument("--harness", type=Path, default=None, metavar="DIR", help=help)
    if not strict:
        return
    parser.add_argument(
        "--strict",
        action="store_true",
        help="treat warnings (scope names without a scope file) as errors",
    )


# --reviewer / --repairer (review run, bolt run): the agents and presets review.agents knows
REVIEWER_METAVAR = "builtin|claude|codex|command:CMD"
REPAIRER_METAVAR = "none|claude|codex|command:CMD"
PRESETS_HELP = "claude/codex: that CLI headless"


def add_json(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON on stdout")


def refuse_packaged_edit(harness: Path | None, what: str) -> None:
    """Without ``--harness`` an installed tool would write into its own package's definitions."""
    from aidlc_review.errors import InvalidInput
    from aidlc_review.harness.layout import in_checkout

    if harness is None and not in_checkout():
        raise InvalidInput(
            f"{what}: the installed plugin's own definitions are read-only; "
            "name the harness to change with --harness DIR"
        )
