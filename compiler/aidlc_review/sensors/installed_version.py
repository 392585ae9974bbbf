"""A tool's version read from the package that installed it, without starting it.

Starting ``mypy --version`` or ``detect-secrets --version`` costs a quarter to half a second
each (the tool imports itself), paid by every first review on a machine. A console script
or binary that pip or uv installed is listed, with its size, in the ``RECORD`` of its
distribution's ``.dist-info`` in the environment it sits in; its version is in the folder's
name. So when that listing holds the very file (same path, same size), the version is read
from there; otherwise (a tool installed another way, a script replaced since) the caller
asks the tool itself. The result names the distribution and its version (``mypy 2.4.1``).
"""

from __future__ import annotations

import re
from pathlib import Path


def installed_version(path: Path) -> str | None:
    """``"<distribution> <version>"`` for the installed script ``path``, or None."""
    try:
        target = path.resolve()
        size = target.stat().st_size
    except OSError:
        return None
    prefix = path.absolute().parent.parent  # <env>/bin/<tool> -> <env>
    for site in sorted(prefix.glob("lib/python*/site-packages")):
        for info in sorted(site.glob("*.dist-info")):
            name, _, version = info.name.removesuffix(".dist-info").partition("-")
            if _canonical(name) != _canonical(path.name) or not version:
                continue
            if _lists(info / "RECORD", site, target, size):
                return f"{_canonical(name)} {version}"
    return None


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _lists(record: Path, site: Path, target: Path, size: int) -> bool:
    """True when ``record`` lists ``target`` with the size it has now."""
    try:
        lines = record.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return False
    for line in lines:
        listed, _, rest = line.partition(",")
        if not listed.endswith(target.name):
            continue
        recorded_size = rest.rpartition(",")[2]
        try:
            same = (site / listed).resolve() == target
        except OSError:
            continue
        if same and recorded_size == str(size):
            return True
    return False
