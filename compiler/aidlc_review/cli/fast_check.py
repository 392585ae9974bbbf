"""``compile --check`` on an unchanged harness, answered before argparse is imported.

The up-to-date case is what CI and pre-commit run most, and the reference compiler answers
it in about the time Python takes to start; building the parser (argparse, the command's
module, the terminal-size probe that imports shutil) is a fifth of ours. So a command line
made only of ``compile``, ``--check`` and the options it understands (``--harness``,
``--display-root``, ``--out`` with a value, ``--strict``) is read here, and when the stamp
says the outputs are up to date the answer is 0 at once. Anything else (another option, an
abbreviation, ``-h``, a stamp that does not match, a harness that cannot be read) returns
None and the ordinary parser runs the whole command, which reports errors as always.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing itself is not imported on this path
if TYPE_CHECKING:
    from collections.abc import Sequence

_VALUED = {"--harness": "harness", "--display-root": "display_root", "--out": "out"}
_DEFAULT_DISPLAY_ROOT = ".claude"  # cmd_compile.DEFAULT_DISPLAY_ROOT (a test keeps them equal)


def up_to_date(argv: Sequence[str]) -> int | None:
    """0 when ``argv`` is a ``compile --check`` whose outputs are up to date; else None.

    Only ``os``, ``hashlib`` and this package's ``errors``, ``dirs``, ``harness.listing``
    and ``compile.stamp`` are imported (no pathlib, json or typing)."""
    options = _options(argv)
    if options is None:
        return None
    from aidlc_review.compile import stamp
    from aidlc_review.errors import AidlcError
    from aidlc_review.harness import listing

    try:
        root, stages_dir = listing.locate(options.get("harness") or None)
        out = options.get("out") or os.path.join(root, "tools", "data")
        chosen = {
            "display_root": options.get("display_root", _DEFAULT_DISPLAY_ROOT),
            "strict": "strict" in options,
        }
        stamp.check_stamp_dir()
        return 0 if stamp.is_up_to_date(stamp.Target(root, stages_dir, out, chosen)) else None
    except (AidlcError, OSError):
        return None  # the ordinary path says what is wrong


def _options(argv: Sequence[str]) -> dict[str, str] | None:
    if len(argv) < 2 or argv[0] != "compile":
        return None
    found: dict[str, str] = {}
    words = list(argv[1:])
    while words:
        word = words.pop(0)
        name, eq, value = word.partition("=")
        if name in _VALUED and _VALUED[name] not in found:
            if not eq:
                if not words or words[0].startswith("-"):
                    return None
                value = words.pop(0)
            found[_VALUED[name]] = value
        elif word in ("--check", "--strict") and word[2:] not in found:
            found[word[2:]] = ""
        else:
            return None
    return found if "check" in found else None
