"""Approvals of code-review that upstream's state records without the plugin's READY.

The engine gate's hook reads command text, and a gate that reads text is not a boundary
(DESIGN.md §9): it is not the only line. Upstream marks code-review completed (``[x]``) in
the intent's ``aidlc-state.md``; every unit of that intent must then hold the plugin's own
approval: a findings document this machine sealed with an ``approve`` gate decision for its
last attempt (``review gate --approve`` records one only on a READY that verifies), or else
(a swarm's units, settled by ``bolt settle`` without a gate each; a record from elsewhere) a
review that verifies READY from the bytes now: anyone can write a document.
A completed code-review without that, for any unit, is named by the plugin's next
``review`` command (``verify`` then fails), by ``doctor`` and by the CI gate (``review
summary`` fails).
"""

from __future__ import annotations

import re
from pathlib import Path

from aidlc_review.errors import AidlcError
from aidlc_review.review.inputs.paths import STAGE, RecordPaths, default_record
from aidlc_review.upstream import names

STATE_FILE = names.STATE_FILE
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
    if doc.verdict != "READY":
        return f"its recorded verdict is {doc.verdict}"
    approved = any(g.attempt == doc.attempt and g.decision == "approve" for g in doc.gate)
    if approved and recorded.sealed_here:
        return None  # `review gate --approve` on a READY that verified, sealed here
    from aidlc_review.review.record.verify import verify_review

    # settled by the swarm (no gate of its own), or written elsewhere: proven from the bytes
    reasons = verify_review(workspace, unit, record=record, ready=True)
    if reasons:
        return "no `review gate --approve` sealed here, and " + "; ".join(reasons)
    return None
