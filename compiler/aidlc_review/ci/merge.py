"""Per-unit findings documents (one CI job each) merged into the aggregate gate.

Each unit's entry carries the same facts Bolt's aggregate gate shows for it
(``bolt.gate.summary``): verdict, attempt, passes used and the open findings, so a matrix
of CI jobs settles to the gate one machine's Bolt run would show. The verdict is not the
document's: each is proven against the checkout the gate runs in (``review.record.proof``), and
why a unit is not READY (``reasons``) and what could not be checked (``unproven``) are said.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

from aidlc_review.errors import InvalidInput
from aidlc_review.review.findings.verdict import NOT_READY, READY
from aidlc_review.review.inputs.paths import RecordPaths
from aidlc_review.review.record.models import Finding, FindingsDocument
from aidlc_review.review.record.proof import Proof, prove_unit
from aidlc_review.review.record.store import load_document

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


def unit_entry(
    unit: str, path: Path, doc: FindingsDocument, today: date, workspace: Path, record: Path | None
) -> dict[str, Any]:
    """One unit's outcome, proven against ``workspace`` (the checkout CI built): the
    document is another job's, so the claimed bytes, the sensors and the verdict are
    recomputed here (``review.record.proof``); what it merely says is never READY."""
    paths = RecordPaths.resolve(workspace, doc.unit, record, None)
    proof = prove_unit(paths, today=today, document=path.read_bytes())
    return {
        "unit": unit,
        "verdict": READY if proof.ready else NOT_READY,
        "attempt": doc.attempt,
        "passes_used": len(doc.attempt_passes()),
        "open_findings": [f.model_dump(mode="json") for f in _open(doc, proof)],
        "waived": sorted(proof.waived),
        "reasons": sorted([*proof.reasons, *proof.unprovable]),
        "unproven": proof.unproven,
    }


def _open(doc: FindingsDocument, proof: Proof) -> list[Finding]:
    """The recorded open findings, with those the recomputation found open added."""
    found = {f.id: f for f in doc.open_findings()}
    found.update({f.id: f for f in proof.blocking})
    return [found[key] for key in sorted(found, key=lambda i: int(i.split("-")[1]))]


def aggregate_gate(
    docs: dict[str, tuple[Path, FindingsDocument]],
    today: date | None = None,
    workspace: Path | None = None,
    record: Path | None = None,
) -> dict[str, Any]:
    """The aggregate gate: every unit's outcome; READY only when every unit is READY."""
    day = today or date.today()
    root = (workspace or Path.cwd()).resolve()
    units = [unit_entry(unit, path, doc, day, root, record) for unit, (path, doc) in docs.items()]
    held = [u["unit"] for u in units if u["verdict"] != READY]
    return {
        "verdict": NOT_READY if held else READY,
        "units": units,
        "not_ready": held,
    }
