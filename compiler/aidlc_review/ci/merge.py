"""Per-unit findings documents (one CI job each) merged into the aggregate gate.

Each unit's entry carries the same facts Bolt's aggregate gate shows for it
(``bolt.gate.summary``): verdict, attempt, passes used and the open findings as recorded,
so a matrix of CI jobs settles to the gate one machine's Bolt run would show.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

from aidlc_review.errors import InvalidInput
from aidlc_review.review.models import FindingsDocument
from aidlc_review.review.store import load_document
from aidlc_review.review.verdict import NOT_READY, READY
from aidlc_review.review.waivers import waived_finding_ids, with_waivers

FINDINGS_FILE = "code-review-findings.json"
STAGE_LEVEL = "(stage)"


def collect_documents(dirs: list[Path]) -> dict[str, tuple[Path, FindingsDocument]]:
    """``{unit: (file, document)}`` from every findings file under ``dirs``; a unit found
    twice, a missing directory or no findings at all is bad input."""
    found: dict[str, tuple[Path, FindingsDocument]] = {}
    for folder in dirs:
        if not folder.is_dir():
            raise InvalidInput(f"--from {folder}: not a directory")
        for path in sorted(folder.rglob(FINDINGS_FILE)):
            doc = load_document(path)
            assert doc is not None  # the file exists: load_document raises or returns one
            unit = doc.unit or STAGE_LEVEL
            if unit in found:
                raise InvalidInput(
                    f"{path}: unit {unit!r} is also reviewed in {found[unit][0]}; "
                    "give each unit's findings once"
                )
            found[unit] = (path, doc)
    if not found:
        shown = ", ".join(str(d) for d in dirs)
        raise InvalidInput(f"--from {shown}: no {FINDINGS_FILE} found")
    return dict(sorted(found.items()))


def unit_entry(unit: str, doc: FindingsDocument, today: date) -> dict[str, Any]:
    """One unit's outcome; its verdict decided again under the waivers that hold ``today``."""
    doc = with_waivers(doc, today)
    return {
        "unit": unit,
        "verdict": doc.verdict,
        "attempt": doc.attempt,
        "passes_used": len(doc.attempt_passes()),
        "open_findings": [f.model_dump(mode="json") for f in doc.open_findings()],
        "waived": sorted(waived_finding_ids(doc, today)),
    }


def aggregate_gate(
    docs: dict[str, tuple[Path, FindingsDocument]], today: date | None = None
) -> dict[str, Any]:
    """The aggregate gate: every unit's outcome; READY only when every unit is READY."""
    day = today or date.today()
    units = [unit_entry(unit, doc, day) for unit, (_, doc) in docs.items()]
    held = [u["unit"] for u in units if u["verdict"] != READY]
    return {
        "verdict": NOT_READY if held else READY,
        "units": units,
        "not_ready": held,
    }
