"""Where a unit's review lives: upstream's record layout plus the engine's private state.

``<record>/construction/<unit>/code-review/`` holds the stage's two artifacts and
the receipt (committed with them, so teammates and CI can verify it);
``<record>/.aidlc-engine/code-review/<unit>/`` holds what is machine-local
(baseline, host requests, briefs, the lock), which upstream's ``.gitignore``
keeps out of git (``.aidlc-*``). A stage-level run (no unit: a scope without units, such
as bugfix) drops the ``<unit>/`` part of the first and uses ``_stage`` for the second; where
the engine put that run's records under its literal placeholder (2.5 resolves a per-unit
stage without a unit to ``construction/{unit-name}/<stage>/``; 2.6 to
``construction/<stage>/``), the placeholder folder is the stage level's, so the review's
record is where the engine looks for code-review's ``produces``.

The record is ``--record`` when given; in an upstream project (``aidlc/spaces/``)
it is the active intent's directory; otherwise ``aidlc-docs/``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from aidlc_review.errors import InvalidInput
from aidlc_review.upstream.names import UNIT_PLACEHOLDER, UNITS
from aidlc_review.upstream.records import unit_records

STAGE = "code-review"
SOURCE_STAGE = "code-generation"
FINDINGS_FILE = "code-review-findings.json"
REPORT_FILE = "code-review.md"
MANIFEST_FILE = "source-manifest.json"
RECEIPT_FILE = "code-review-receipt.json"
ENGINE_DIR = ".aidlc-engine"
STAGE_LEVEL = "_stage"
# The unit segment upstream 2.5 writes, literally, into a per-unit stage's record paths in a
# scope without units: no unit's name (upstream.names)
ENGINE_PLACEHOLDER_UNIT = UNIT_PLACEHOLDER
# Unit names: the one definition (the review, Bolt and the hooks all use it).
UNIT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")  # whole names: fullmatch


@dataclass(frozen=True)
class RecordPaths:
    workspace: Path
    record: Path
    unit: str | None
    manifest: Path

    @classmethod
    def resolve(
        cls,
        workspace: Path,
        unit: str | None,
        record: Path | None = None,
        manifest: Path | None = None,
    ) -> RecordPaths:
        root = workspace.resolve()
        if not root.is_dir():
            raise InvalidInput(f"{workspace}: workspace directory not found")
        if unit is not None and (not UNIT_NAME.fullmatch(unit) or unit in (".", "..")):
            raise InvalidInput(
                f"--unit {unit!r}: must be a unit name (letters, digits, '.', '_', '-')"
            )
        _refuse_broken_install(root)
        record_dir = (record if record is not None else default_record(root)).resolve()
        default_manifest = _construction(record_dir, unit) / SOURCE_STAGE / MANIFEST_FILE
        return cls(root, record_dir, unit, (manifest or default_manifest).resolve())

    @property
    def stage_dir(self) -> Path:
        return _construction(self.record, self.unit) / STAGE

    @property
    def findings(self) -> Path:
        return self.stage_dir / FINDINGS_FILE

    @property
    def report(self) -> Path:
        return self.stage_dir / REPORT_FILE

    @property
    def engine(self) -> Path:
        return self.record / ENGINE_DIR / STAGE / (self.unit or STAGE_LEVEL)

    @property
    def receipt(self) -> Path:
        return self.stage_dir / RECEIPT_FILE

    @property
    def baseline(self) -> Path:
        return self.engine / "baseline.json"

    @property
    def lock(self) -> Path:
        return self.engine / "unit.lock"

    @property
    def requests(self) -> Path:
        return self.engine / "requests"

    def brief(self, role: str, attempt: int, number: int) -> Path:
        return self.engine / "briefs" / f"{role}-attempt{attempt}-pass{number}.md"

    def unit_dir(self) -> Path:
        return _construction(self.record, self.unit)

    def display(self, path: Path) -> str:
        """A path as shown to people and agents: workspace-relative when inside it."""
        try:
            return path.resolve().relative_to(self.workspace).as_posix()
        except ValueError:
            return path.as_posix()

    def all_manifests(self) -> list[Path]:
        """Every unit's source manifest in the record (plus the stage-level one)."""
        construction = self.record / "construction"
        found = set(construction.glob(f"*/{SOURCE_STAGE}/{MANIFEST_FILE}"))
        found |= set(construction.glob(f"{UNITS}/*/{SOURCE_STAGE}/{MANIFEST_FILE}"))
        stage_level = construction / SOURCE_STAGE / MANIFEST_FILE
        if stage_level.is_file():
            found.add(stage_level)
        if self.manifest.is_file():
            found.add(self.manifest)
        return sorted(found)


def missing_manifest(paths: RecordPaths) -> str:
    """Why there is nothing to review at ``paths``: the units there are, and the likeliest."""
    import difflib

    units = sorted(
        {
            m.parent.parent.name
            for m in paths.all_manifests()
            if m.parent.parent.name not in ("construction", ENGINE_PLACEHOLDER_UNIT)
        }
    )
    asked = f"--unit {paths.unit}" if paths.unit else "the stage level (no --unit)"
    said = f"{paths.manifest}: no source manifest for {asked}"
    if not units:
        return (
            f"{said}, and no unit under {paths.display(paths.record / 'construction')} has "
            "one: code generation writes it (docs/adopting.md), or claim files with "
            "`aidlc-review init --unit U PATH...`"
        )
    close = difflib.get_close_matches(paths.unit or "", units, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return f"{said}{hint}; units with one: {', '.join(units)}"


def _refuse_broken_install(workspace: Path) -> None:
    """Before anything is read or written: an install an upgrade broke is named first."""
    from aidlc_review.review.inputs.intent import upstream_harness

    harness = upstream_harness(workspace)
    if harness is not None:  # the plan's models (pydantic): only where there is a harness
        from aidlc_review.harness.review_plan import refuse_broken

        refuse_broken(harness, STAGE)


def default_record(workspace: Path) -> Path:
    """The active intent's record in an upstream project, else ``aidlc-docs/``."""
    from aidlc_review.review.inputs.intent import active_intent_record

    found = active_intent_record(workspace)
    return found if found is not None else workspace / "aidlc-docs"


def _construction(record: Path, unit: str | None) -> Path:
    base = record / "construction"
    if unit:
        return unit_records(record, unit)
    placeholder = base / ENGINE_PLACEHOLDER_UNIT
    return placeholder if placeholder.is_dir() else base
