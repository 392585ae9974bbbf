"""``aidlc-review``: parse, dispatch to one library call, map the result to an exit code."""

from __future__ import annotations

import gc
import os
import sys

from aidlc_review import __version__
from aidlc_review.cli.fast_check import up_to_date
from aidlc_review.errors import EXIT_INTERNAL, EXIT_INVALID, AidlcError

TYPE_CHECKING = False  # not typing's: this module is on compile --check's fast path
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

DESCRIPTION = (
    "A source-bound code-review stage for AI-DLC: compile a harness's stage graph and "
    "scope plans, run sensors on a unit's claimed source, review and repair units, "
    "and drive the autonomous Bolt pipeline."
)
COMMAND_MODULES = (
    "compile",
    "graph",
    "plan",
    "scope",
    "install",
    "sensors",
    "review",
    "bolt",
    "doctor",
    "hook",
    "init",
)
ALIASES = {"uninstall": "install"}  # verbs registered by another command's module
SHORT_IN_MEMORY = {"compile", "graph", "plan", "scope"}  # no agent, sensor or pipeline runs


def _parser_class() -> type[argparse.ArgumentParser]:
    import argparse

    class _Parser(argparse.ArgumentParser):
        def error(self, message: str) -> None:  # type: ignore[override]
            self.print_usage(sys.stderr)
            self.exit(EXIT_INVALID, f"{self.prog}: error: {message}\n")

    return _Parser


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole parser, or (``only``) just the one command being run: registering
    every command costs more than a fast ``compile --check`` is allowed to take (argparse
    itself is imported only here: ``cli.fast_check`` answers that one without it)."""
    import importlib

    _Parser = _parser_class()
    parser = _Parser(prog="aidlc-review", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"aidlc-review {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name in [ALIASES.get(only, only)] if only else COMMAND_MODULES:
        module = importlib.import_module(f"aidlc_review.cli.cmd_{name}")
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if up_to_date(args_list) == 0:  # compile --check on an unchanged harness: no parser
        return 0
    known = (*COMMAND_MODULES, *ALIASES)
    command = args_list[0] if args_list and args_list[0] in known else None
    parser = build_parser(command)
    try:
        args = parser.parse_args(args_list)
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
    except OSError as exc:
        from aidlc_review.fsio import FULL  # only a failed run pays the import

        if exc.errno not in FULL:
            return _internal(exc)
        print(
            f"{exc.filename or 'a file of the run'}: {exc.strerror}: not written (what was "
            "there before is kept); free some space and run the command again",
            file=sys.stderr,
        )
        return EXIT_INVALID
    except Exception as exc:  # the one place an unexpected error becomes exit 3
        return _internal(exc)


def _internal(exc: Exception) -> int:
    if os.environ.get("AIDLC_DEBUG"):
        raise exc
    print(
        f"internal error: {type(exc).__name__}: {exc} (set AIDLC_DEBUG=1 for a traceback)",
        file=sys.stderr,
    )
    return EXIT_INTERNAL


def entry() -> None:
    """The console script. Two settings of the garbage collector that only a whole process
    may choose (``main`` called in-process never touches them): a short command that
    works in memory runs without it (importing pydantic's models and parsing the harness
    make garbage the collector would walk again and again, a sixth of a cold compile),
    and every command freezes what is left before exit, so the interpreter's shutdown
    frees it without one last walk over the heap."""
    if sys.argv[1:2] and sys.argv[1] in SHORT_IN_MEMORY:
        gc.disable()
    code = main()
    gc.freeze()
    sys.exit(code)
