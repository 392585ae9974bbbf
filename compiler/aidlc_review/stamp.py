"""An up-to-date stamp for ``compile --check``.

The stamp records the hash of every input file, the options, and the hash of
every output file. When all still match, the harness is up to date without
parsing a single YAML file (this module imports only the standard library).
Any edit to an input or an output changes a hash and forces the full check.
The stamp lives in the user's cache dir, never inside the harness.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from aidlc_review import __version__
from aidlc_review.layout import HarnessLayout


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "aidlc-review" / "compile-stamps"


def _digest(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return "missing"


def fingerprint(
    layout: HarnessLayout, out: Path, options: dict[str, object], outputs: list[str]
) -> dict[str, object]:
    return {
        "version": __version__,
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
    return bool(outputs) and saved == fingerprint(layout, out, options, outputs)


def record(
    layout: HarnessLayout, out: Path, options: dict[str, object], outputs: list[str]
) -> None:
    """Best effort: a cache that cannot be written only costs speed next time."""
    path = _stamp_path(layout, out, options)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(fingerprint(layout, out, options, outputs), sort_keys=True))
        os.replace(tmp, path)
    except OSError:
        pass
