"""Approvals of code-review that upstream's state records without the plugin's READY.

The engine gate's hook reads command text, and a gate that reads text is not a boundary
(DESIGN.md §9): it is not the only line. Upstream marks code-review completed (``[x]``) in
the intent's ``aidlc-state.md``; every unit of that intent must then hold the plugin's own
approval: a findings document with an ``approve`` gate decision for its last attempt, which
``review gate --approve`` records only on a READY that verifies; sealed by this machine, or
else proven READY from the bytes (``verify --ready``), since anyone can write a document.
A completed code-review without that, for any unit, is named by the plugin's next
``review`` command (``verify`` then fails), by ``doctor`` and by the CI gate (``review
summary`` fails).
"""

from __future__ import annotations

import re
from pathlib import Path

from aidlc_review.errors import AidlcError
from aidlc_review.review.inputs.paths import STAGE, RecordPaths, default_record

STATE_FILE = "aidlc-state.md"
_COMPLETED = re.compile(rf"^- \[x\] {re.escape(STAGE)}\s*—", re.M)


def unbacked_approvals(workspace: Path) -> list[str]:
    """One line per unit whose code-review upstream records as approved while the plugin
    holds no READY approval for it; ``[]`` outside an upstream project, or when all hold."""
    try:
        record = default_record(workspace.resolve())
        state = (record / STATE_FILE).read_text(encoding="utf-8")
    except (AidlcError, OSError, UnicodeDecodeError):
        return []
    if not _COMPLETED.search(state):
        return []
    from aidlc_review.hooks.engine_gate import intent_units

    units: list[str | None] = list(intent_units(workspace.resolve(), record)) or [None]
    named = []
    for unit in units:
        why = _why_unbacked(workspace, unit, record)
        if why is not None:
            shown = unit or "(the stage)"
            named.append(
                f"upstream's state ({record / STATE_FILE}) records code-review as approved, "
                f"but unit {shown} has no READY approval by aidlc-review: {why}. Approving "
                "code-review past the plugin is not a review: run `aidlc-review review run` "
                f"and `aidlc-review review gate --approve` for {shown}"
            )
    return named


def _why_unbacked(workspace: Path, unit: str | None, record: Path) -> str | None:
    from aidlc_review.review.record.store import read_recorded

    try:
        paths = RecordPaths.resolve(workspace, unit, record)
        recorded = read_recorded(paths)
    except AidlcError as exc:  # a forged seal, an unreadable document
        return str(exc)
    if recorded is None:
        return "it was never reviewed"
    doc = recorded.doc
    approved = [g for g in doc.gate if g.attempt == doc.attempt and g.decision == "approve"]
    if not approved:
        return f"its review (verdict {doc.verdict}) was never approved with `review gate`"
    if doc.verdict != "READY":
        return f"its recorded verdict is {doc.verdict}"
    if not recorded.sealed_here:  # written elsewhere (or by an agent): proven from the bytes
        from aidlc_review.review.record.verify import verify_review

        reasons = verify_review(workspace, unit, record=record, ready=True)
        if reasons:
            return "its record does not prove READY here: " + "; ".join(reasons)
    return None
