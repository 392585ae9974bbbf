"""An upstream project's intents, read from their state files the way upstream reads them.

Each intent keeps its state in ``aidlc/spaces/<space>/intents/<intent>/aidlc-state.md``.
Upstream reads a field as the first ``- **Name**: value`` line, trimmed (``getField`` in
``aidlc-lib.ts``), and a stage's progress from its checkbox line ``- [x] slug — EXECUTE``
(``parseCheckboxes``). ``Construction Iteration`` is unit-major only when that field is
exactly ``unit-major`` (``readConstructionIteration`` in ``aidlc-orchestrate.ts``); then
upstream walks every inline per-unit construction stage, code-review included, unit by
unit among the design stages, before code generation has written the unit's code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from aidlc_review.upstream import names

STATE_FILE = names.STATE_FILE
ITERATION_FIELD = "Construction Iteration"
UNIT_MAJOR = "unit-major"
SET_STAGE_MAJOR = names.command_text(names.STATE_TOOL, "set-construction-iteration", "stage-major")
_CHECKBOX = re.compile(r"^- \[([ xSR?-])\] (\S+)\s*—", re.M)
# upstream's checkbox markers for a stage that has begun and is not settled
UNSETTLED = {"-": "in progress", "?": "awaiting approval", "R": "being revised"}


@dataclass(frozen=True)
class IntentState:
    path: Path
    text: str

    @classmethod
    def read(cls, path: Path) -> IntentState | None:
        try:
            return cls(path, path.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            return None

    @property
    def name(self) -> str:
        """``<space>/<intent>``, as the folders name it."""
        return f"{self.path.parent.parent.parent.name}/{self.path.parent.name}"

    def field(self, name: str) -> str | None:
        found = re.search(rf"^- \*\*{re.escape(name)}\*\*:[ \t]*(.*)$", self.text, re.M)
        return found.group(1).strip() if found else None

    @property
    def unit_major(self) -> bool:
        return self.field(ITERATION_FIELD) == UNIT_MAJOR

    def holding(self, slug: str) -> str | None:
        """Why ``slug`` is this intent's stage now (current, or begun and unsettled); None
        when it is not."""
        if self.field("Current Stage") == slug:
            return "as its current stage"
        marker = next((m for m, s in _CHECKBOX.findall(self.text) if s == slug), None)
        return UNSETTLED[marker] if marker in UNSETTLED else None


def project_intents(project: Path) -> list[IntentState]:
    """Every intent of every space in the project, in path order."""
    paths = sorted(project.glob(f"{names.SPACES}/*/intents/*/{STATE_FILE}"))
    return [state for state in map(IntentState.read, paths) if state is not None]


def unit_major_refusal(state: IntentState, before: str) -> str:
    """The refusal of an install or a scope edit while an intent iterates unit-major."""
    return (
        f"{state.path}: Construction Iteration is unit-major; code-review runs per unit after "
        "code generation, which unit-major iteration would not keep (upstream would schedule "
        f"it among the design stages). Set it back with `{SET_STAGE_MAJOR}` for intent "
        f"{state.name} before {before}"
    )
