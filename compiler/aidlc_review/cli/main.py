"""``aidlc-review``: parse, dispatch to one library call, map the result to an exit code."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from aidlc_review import __version__
from aidlc_review.errors import EXIT_INTERNAL, EXIT_INVALID, AidlcError

COMMAND_MODULES = ("compile", "graph", "plan", "scope", "install", "sensors", "review", "bolt")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(EXIT_INVALID, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="aidlc-review", description=__doc__)
    parser.add_argument("--version", action="version", version=f"aidlc-review {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(f"aidlc_review.cli.cmd_{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"aidlc_review.cli.cmd_{name}":
                raise
            continue
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    try:
        return int(args.handler(args))
    except AidlcError as exc:
        print(str(exc), file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERNAL
    except Exception as exc:  # the one place an unexpected error becomes exit 3
        if os.environ.get("AIDLC_DEBUG"):
            raise
        print(
            f"internal error: {type(exc).__name__}: {exc} (set AIDLC_DEBUG=1 for a traceback)",
            file=sys.stderr,
        )
        return EXIT_INTERNAL


def entry() -> None:
    sys.exit(main())
