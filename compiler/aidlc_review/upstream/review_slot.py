"""The review slot a newer engine's logger hands out, and the review written at it.

Read in upstream's files (docs/upstream-newer.md; not run here): ``aidlc-log.ts review``
(the request, without ``--verdict``) prints JSON with ``requestId`` and ``reviewFile``, the
project-relative path of the one file the reviewer writes; the ``--verdict`` call reads the
review from it. The review holds exactly one ``**Verdict:** READY|NOT-READY``, one
``**Reviewer:** <reviewer>`` and one ``**Iteration:** <n>`` line and its findings under
``### Findings`` in a table; it may open with ``## Review`` and has no later H1 or H2.
Where the slot points moved between versions (``.aidlc-reviews/``, then
``.aidlc-engine/reviews``): the plugin takes it from the request, never from a path of its own.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

SLOT_KEY = "reviewFile"  # the request's JSON key (aidlc-log.ts, stage-protocol-reviewer.md)
REQUEST_KEY = "requestId"


class SlotRefused(Exception):
    """The slot the engine named cannot be written safely: nothing was written."""


@dataclass(frozen=True)
class SlotFinding:
    id: str
    severity: str
    where: str  # path[:line]
    finding: str
    status: str


def slot_from(stdout: str) -> str | None:
    """The ``reviewFile`` of the request's JSON on ``stdout`` (its last JSON object line);
    None when the engine handed out no slot (2.5, 2.6: no such key)."""
    for line in reversed(stdout.strip().splitlines()):
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if isinstance(data, dict):
            slot = data.get(SLOT_KEY)
            return slot if isinstance(slot, str) and slot else None
    return None


def review_text(
    reviewer: str, iteration: int, verdict: str, summary: str, findings: Iterable[SlotFinding]
) -> str:
    """The review in the shape the engine's verdict call reads (one verdict, reviewer and
    iteration line; the findings in a table under ``### Findings``)."""
    rows = [
        f"| {_cell(f.id)} | {_cell(f.severity)} | {_cell(f.where)} | {_cell(f.finding)} "
        f"| {_cell(f.status)} |"
        for f in findings
    ]
    table = "\n".join(
        [
            "| ID | Severity | Location | Finding | Status |",
            "|---|---|---|---|---|",
            *(rows or ["| - | - | - | none open | - |"]),
        ]
    )
    return (
        f"## Review\n\n**Reviewer:** {reviewer}\n\n**Iteration:** {iteration}\n\n"
        f"**Verdict:** {verdict}\n\n{_one_line(summary)}\n\n### Findings\n\n{table}\n"
    )


def write_slot(project: Path, slot: str, text: str) -> Path:
    """Write ``text`` at the project-relative ``slot``; refused (``SlotRefused``) when the
    slot is absolute or leads outside the project, or through a symlink."""
    if Path(slot).is_absolute() or ".." in Path(slot).parts:
        raise SlotRefused(f"the engine's review slot {slot!r} is not a path inside the project")
    root = project.resolve()
    target = root / slot
    for part in [target, *target.parents]:
        if part == root:
            break
        if part.is_symlink():
            raise SlotRefused(f"the engine's review slot {slot!r} leads through a symlink")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    return target


def _cell(text: str) -> str:
    return _one_line(text).replace("|", "\\|")


def _one_line(text: str) -> str:
    """One line of prose that cannot open a heading or a section of its own."""
    return " ".join(text.split()).lstrip("#").strip() or "-"
