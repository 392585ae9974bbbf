"""An up-to-date stamp for ``compile --check``.

The stamp records the hash of every input file, the options, the hash of every
output file, and the hash of the compiler's own code: every module of this
package that the recording process had loaded (the loader, the models, the
graph, the renderer of ``compiled.py`` whose key order *is* the output schema).
When all still match, the harness is up to date without parsing a single YAML
file (this module imports only the standard library). Any edit to an input, an
output or the compiler changes a hash and forces the full check, so a changed
compiler (same ``__version__``, new code) never reads as up to date.
The stamp lives in the user's cache dir, never inside the harness.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

from aidlc_review import __version__
from aidlc_review.dirs import cache_dir, ensure_cache_dir
from aidlc_review.harness.layout import HarnessLayout

PACKAGE_DIR = Path(__file__).resolve().parents[1]


def _cache_dir() -> Path:
    return cache_dir("compile-stamps")


def check_stamp_dir() -> None:
    """Refuse a bad ``XDG_CACHE_HOME`` (usage error) before a compile writes anything."""
    ensure_cache_dir(_cache_dir())


def _digest(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return "missing"


def loaded_code() -> list[str]:
    """This package's source files loaded in this process, relative to the package.

    Recorded after a compile, so it names exactly the code that produced the outputs
    (a module that was never imported cannot have changed them).
    """
    prefix = str(PACKAGE_DIR) + os.sep
    found = set()
    # By name first: a process (a test worker, a Bolt run) may hold thousands of modules.
    for name, module in list(sys.modules.items()):
        if name != "aidlc_review" and not name.startswith("aidlc_review."):
            continue
        path = getattr(module, "__file__", None)
        # A prefix test, not resolve(): the file must be this package's own source.
        if path and path.startswith(prefix) and path.endswith(".py"):
            found.add(Path(path[len(prefix) :]).as_posix())
    return sorted(found)


def fingerprint(
    layout: HarnessLayout,
    out: Path,
    options: dict[str, object],
    outputs: list[str],
    code: list[str],
) -> dict[str, object]:
    return {
        "version": __version__,
        "code": {name: _digest(PACKAGE_DIR / name) for name in code},
        "options": options,
        "inputs": {layout.display(p): _digest(p) for p in layout.input_files()},
        "outputs": {name: _digest(out / name) for name in outputs},
    }


def _stamp_path(layout: HarnessLayout, out: Path, options: dict[str, object]) -> Path:
    key = json.dumps([str(layout.root), str(out.resolve()), options], sort_keys=True)
    return _cache_dir() / (hashlib.sha256(key.encode()).hexdigest()[:32] + ".json")


def is_up_to_date(layout: HarnessLayout, out: Path, options: dict[str, object]) -> bool:
    path = _stamp_path(layout, out, options)
    try:
        saved = json.loads(path.read_text())
    except (OSError, ValueError):
        return False
    outputs = list(saved.get("outputs", {}))
    code = list(saved.get("code", {}))
    return bool(outputs and code) and saved == fingerprint(layout, out, options, outputs, code)


def record(
    layout: HarnessLayout, out: Path, options: dict[str, object], outputs: list[str]
) -> None:
    """Best effort: a cache that cannot be written only costs speed next time."""
    path = _stamp_path(layout, out, options)
    ensure_cache_dir(path.parent)  # a cache home that cannot hold stamps is a usage error
    try:
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        stamp = fingerprint(layout, out, options, outputs, loaded_code())
        tmp.write_text(json.dumps(stamp, sort_keys=True))
        os.replace(tmp, path)
    except OSError:
        pass
