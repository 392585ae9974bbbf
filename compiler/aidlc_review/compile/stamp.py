"""An up-to-date stamp for ``compile --check``.

The stamp records the hash of every input file, the options, the hash of every
output file, and the hash of the compiler's own code: every module of this
package that the recording process had loaded (the loader, the models, the
graph, the renderer of ``compiled.py`` whose key order *is* the output schema).
When all still match, the harness is up to date without parsing a single YAML
file. Any edit to an input, an output or the compiler changes a hash and forces
the full check, so a changed compiler (same ``__version__``, new code) never
reads as up to date. The stamp lives in the user's cache dir, never inside the
harness.

It is a text file of tab-separated lines (``kind``, name, value), and a check is
the recomputed text compared with the saved text, character for character. This
module imports ``os``, ``sys`` and ``hashlib`` only (no ``json``, ``pathlib`` or
``typing``): ``compile --check`` on an unchanged harness is answered by it and
``harness.listing`` alone, and those imports would be a third of its time.
"""

from __future__ import annotations

import hashlib
import os
import sys

from aidlc_review import __version__
from aidlc_review.dirs import cache_dir, ensure_cache_dir
from aidlc_review.harness import listing

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

FORMAT = "aidlc-review compile stamp 2"
PACKAGE_DIR = listing.PACKAGE_DIR


class Target:
    """What a stamp is about: a harness (root and stages folder) compiled into ``out``
    with ``options``. Plain strings, resolved."""

    __slots__ = ("root", "stages_dir", "out", "options")

    def __init__(self, root: str, stages_dir: str, out: str, options: Mapping[str, object]) -> None:
        self.root = os.path.realpath(root)
        self.stages_dir = os.path.realpath(stages_dir)
        self.out = os.path.realpath(out)
        self.options = dict(sorted(options.items()))

    def stamp_path(self) -> str:
        key = repr((self.root, self.out, list(self.options.items())))
        name = hashlib.sha256(key.encode()).hexdigest()[:32] + ".stamp"
        return os.path.join(_cache_dir(), name)


def _cache_dir() -> str:
    return cache_dir("compile-stamps")


def check_stamp_dir() -> None:
    """Refuse a bad ``XDG_CACHE_HOME`` (usage error) before a compile writes anything."""
    ensure_cache_dir(_cache_dir())


def _digest(path: str) -> str:
    try:
        with open(path, "rb") as handle:
            return hashlib.sha256(handle.read()).hexdigest()
    except OSError:
        return "missing"


def loaded_code() -> list[str]:
    """This package's source files loaded in this process, relative to the package.

    Recorded after a compile, so it names exactly the code that produced the outputs
    (a module that was never imported cannot have changed them).
    """
    prefix = PACKAGE_DIR + os.sep
    found = set()
    # By name first: a process (a test worker, a Bolt run) may hold thousands of modules.
    for name, module in list(sys.modules.items()):
        if name != "aidlc_review" and not name.startswith("aidlc_review."):
            continue
        path = getattr(module, "__file__", None)
        # A prefix test, not realpath(): the file must be this package's own source.
        if path and path.startswith(prefix) and path.endswith(".py"):
            found.add(path[len(prefix) :].replace(os.sep, "/"))
    return sorted(found)


def render(target: Target, outputs: list[str], code: list[str]) -> str:
    """The stamp's text for ``target`` as its files are now."""
    lines = [FORMAT, f"version\t{__version__}"]
    lines += [f"option\t{key}\t{value!r}" for key, value in target.options.items()]
    lines += [f"code\t{name}\t{_digest(os.path.join(PACKAGE_DIR, name))}" for name in code]
    for path in listing.definition_files(target.root, target.stages_dir):
        # repr: a file name may hold a tab or a newline; the text stays one line per file
        lines.append(f"input\t{listing.display(target.root, path)!r}\t{_digest(path)}")
    lines += [f"output\t{name}\t{_digest(os.path.join(target.out, name))}" for name in outputs]
    return "\n".join(lines) + "\n"


def names(text: str, kind: str) -> list[str]:
    """The names on the ``kind`` lines of a stamp's text (``code`` or ``output``)."""
    head = kind + "\t"
    return [line.split("\t")[1] for line in text.splitlines() if line.startswith(head)]


def is_up_to_date(target: Target) -> bool:
    try:
        with open(target.stamp_path(), encoding="utf-8") as handle:
            saved = handle.read()
    except (OSError, ValueError):
        return False
    outputs, code = names(saved, "output"), names(saved, "code")
    return bool(outputs and code) and saved == render(target, outputs, code)


def record(target: Target, outputs: list[str]) -> None:
    """Best effort: a cache that cannot be written only costs speed next time."""
    path = target.stamp_path()
    ensure_cache_dir(os.path.dirname(path))  # a cache home that cannot hold stamps: usage
    code = loaded_code()
    if any("\t" in name or "\n" in name for name in (*outputs, *code)):
        return  # such a name cannot be read back from its line: no stamp, a full check
    try:
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.write(render(target, outputs, code))
        os.replace(tmp, path)
    except OSError:
        pass
