"""The engine's version, read where it declares it: ``AIDLC_VERSION`` in
``tools/aidlc-version.ts`` (``export const AIDLC_VERSION = "2.6.18";``).

The one reading of it: the dialect (``harness.engine``), install's verified range
(``install.engine_contract``) and ``doctor`` ask here. A version is named in messages and
checked against the verified range; what the engine *does* is read by feature detection
(``features.py``), never from this number.
"""

from __future__ import annotations

import re
from pathlib import Path

from aidlc_review.upstream import names

VERSION_FILE = f"{names.TOOLS_DIR}/{names.VERSION_TOOL}"  # relative to the harness
_DECLARED = re.compile(rf'\b{names.VERSION_CONSTANT}\s*=\s*"([^"]*)"')


def version_in(source: str) -> str | None:
    """The version ``source`` (the version tool's text) declares; None when it declares none."""
    found = _DECLARED.search(source)
    return found.group(1) if found else None


def engine_version(harness: Path) -> str | None:
    """The version of the engine whose harness is ``harness`` (its ``.claude`` folder);
    None when there is no version tool or it declares none."""
    try:
        source = (harness / VERSION_FILE).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return version_in(source)
