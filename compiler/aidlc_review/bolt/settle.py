"""Settling code review in the main workspace for units reviewed before they merged.

In upstream's swarm each unit is reviewed in its worktree and lands with its record
(``bolt.land``), so code-review's inline stage runs no reviewer again (DESIGN.md §6). Upstream
still approves the stage only on a ``REVIEW_COMPLETED`` row per unit recorded after the stage
started, and the rows the worktree reviews wrote were merged in before it. ``settle_reviews``
proves every unit of the intent from the bytes here (``review verify --ready``) and, only
when every one holds, records upstream's reviewer receipt for each
(``review.record.upstream_receipt``, the plugin's one writer of them). If one does not hold,
nothing is recorded: the stage cannot be approved, and each unit's reasons say why.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from aidlc_review.errors import InvalidInput
from aidlc_review.install.ledger import read_ledger
from aidlc_review.review.inputs.intent import upstream_harness
from aidlc_review.review.inputs.paths import RecordPaths, default_record
from aidlc_review.review.record.store import load_document
from aidlc_review.review.record.upstream_receipt import record_upstream_review
from aidlc_review.review.record.verify import verify_review
from aidlc_review.upstream import names
from aidlc_review.upstream.records import unit_folders
from aidlc_review.upstream.tools import find_bun

CONSTRUCTION_STAGES = "aidlc-common/stages/construction"
Say = Callable[[str], None]


@dataclass(frozen=True)
class Settled:
    units: dict[str, list[str]]  # unit: why its review does not hold here ([] when it does)
    recorded: bool  # upstream's receipts were recorded (every unit holds)

    @property
    def held(self) -> list[str]:
        return [unit for unit, reasons in self.units.items() if reasons]


def settle_reviews(workspace: Path, say: Say) -> Settled:
    """Prove every unit of the active intent here; record upstream's receipts if all hold."""
    root = workspace.resolve()
    harness = upstream_harness(root)
    ledger = read_ledger(harness) if harness is not None else None
    if harness is None or ledger is None:
        raise InvalidInput(f"{root}: the code-review plugin is not installed in an AI-DLC harness")
    record = default_record(root)
    units = intent_units(record, harness)
    if not units:
        raise InvalidInput(f"{record}/construction: no unit records to settle")
    found = {unit: verify_review(root, unit, ready=True) for unit in units}
    if any(found.values()):
        return Settled(found, recorded=False)
    if find_bun() is None:
        raise InvalidInput(
            f"{names.RUNNER} not found: upstream's review receipts cannot be recorded"
        )
    for unit in units:
        doc = load_document(RecordPaths.resolve(root, unit).findings)
        assert doc is not None  # verify --ready held: the unit has its findings document
        record_upstream_review(harness, ledger.stage.reviewer, doc, unit, say)
    return Settled(found, recorded=True)


def intent_units(record: Path, harness: Path) -> list[str]:
    """The units the intent has construction records for (every per-unit stage writes
    ``construction/<unit>/<stage>/``, or ``construction/units/<unit>/<stage>/`` where the
    engine keeps them there); a stage-level folder is named after its stage."""
    stages = {p.stem for p in (harness / CONSTRUCTION_STAGES).glob("*.md")}
    return sorted(
        name
        for name, d in unit_folders(record).items()
        if name not in stages and any(c.is_dir() for c in d.iterdir())
    )
