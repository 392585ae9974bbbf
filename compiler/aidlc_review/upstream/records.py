"""Where upstream's engine keeps a unit's records in an intent record, in either layout.

2.5.5 and 2.6.18 keep them under ``construction/<unit>/<stage>/``; upstream's newer
code-generation stage under ``construction/units/<unit>/<stage>/`` (docs/upstream-newer.md:
read in its files, not run). Which one is read from where the engine put them: code
generation writes a unit's records before anything of the plugin's looks for them. The
review, the hooks, ``bolt land``/``settle`` and the upstream receipt ask here.
"""

from __future__ import annotations

from pathlib import Path

from aidlc_review.upstream.names import CONSTRUCTION, UNITS

# the folders a unit's record holds that tell a unit's folder from the units container
_UNIT_STAGES = ("code-generation", "code-review")


def unit_records(record: Path, unit: str) -> Path:
    """A unit's records folder in the intent record ``record``: ``construction/units/<unit>/``
    where the engine keeps them there (the folder exists: code generation wrote into it),
    else ``construction/<unit>/``."""
    newest = record / CONSTRUCTION / UNITS / unit
    return (
        newest if _is_units_container(record) and newest.is_dir() else record / CONSTRUCTION / unit
    )


def unit_folders(record: Path) -> dict[str, Path]:
    """``{unit: its records folder}`` for every folder under ``construction/`` that may be a
    unit's, in either layout (the caller knows which hold a unit's stages and which are a
    stage-level run's ``construction/<stage>/``)."""
    base = record / CONSTRUCTION
    found: dict[str, Path] = {}
    for parent in (base, base / UNITS):
        if parent.is_dir() and (parent == base or _is_units_container(record)):
            found.update({d.name: d for d in sorted(parent.iterdir()) if d.is_dir()})
    if _is_units_container(record):
        found.pop(UNITS, None)
    return found


def _is_units_container(record: Path) -> bool:
    """``construction/units/`` holds units' folders, not the stages of a unit named
    ``units`` (the older layout): it holds no stage folder of its own."""
    units = record / CONSTRUCTION / UNITS
    return units.is_dir() and not any((units / stage).is_dir() for stage in _UNIT_STAGES)
