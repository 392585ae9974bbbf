"""``review verify``: the one verification (``review.record.proof``) as ``path: reason`` lines.

The pre-commit hook, CI and Bolt ask it too. It recomputes: the claimed bytes against the
receipt, the sensors on them (cached by content), the verdict from the findings and the
waivers in force; a stored verdict or digest that disagrees is a reason, never an answer.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from aidlc_review.review.inputs.paths import RecordPaths

if TYPE_CHECKING:  # the record's models (pydantic): only when the full check runs
    from aidlc_review.review.record.proof import Proof


def verify_review(
    workspace: Path,
    unit: str | None,
    record: Path | None = None,
    manifest: Path | None = None,
    ready: bool = False,
    harness: Path | None = None,
) -> list[str]:
    """Why the unit's review does not hold (``path: reason`` lines); ``[]`` when it does.

    ``ready``: a recomputed verdict other than READY is a reason too (for merge checks)."""
    return verify_answer(workspace, unit, record, manifest, ready, harness)[1]


def verify_answer(
    workspace: Path,
    unit: str | None,
    record: Path | None = None,
    manifest: Path | None = None,
    ready: bool = False,
    harness: Path | None = None,
    unreviewed_passes: bool = False,
) -> tuple[RecordPaths, list[str], list[str]]:
    """The record paths, the reasons verify exits 1 for and what could not be checked:
    this machine's sealed answer when nothing the full check reads has changed since it
    ran here (``review.record.answer_memo``), else the full check (``verify_proof``).
    ``unreviewed_passes``: a unit with no review recorded and nothing stale has no reasons
    (the commit hook's view: code generation is still going on); only a recorded review's
    answer is ever kept, so a kept answer is never one of these."""
    from aidlc_review.review.record import answer_memo as memo
    from aidlc_review.review.source.git_drift import listed_once, one_look

    paths = RecordPaths.resolve(workspace, unit, record, manifest)
    # one look at the tree until the sensors run (the gate writes nothing in it before
    # them; ``sensor_replay`` looks again when one runs); the key after the check lists
    # the tree again, so an answer is only kept when nothing moved in between
    with one_look():
        with listed_once():
            key = memo.answer_key(paths, ready, harness)
            known = memo.recall_answer(paths, key) if key is not None else None
            if known is not None:
                return paths, *known
            claims = memo.claims_now(paths) if key is not None else None
            tree = memo.claimed_tree(paths.workspace, *claims) if claims is not None else None
            proof = _proved(paths, harness, ready)
        if unreviewed_passes and not proof.recorded and not proof.stale:
            return paths, [], []
        answer = proof_reasons(paths, proof, ready), list(proof.unproven)
        # remembered only when not one byte moved while the check ran (the key and the
        # claims taken again now): an answer is never kept for bytes it did not see
        if claims is not None and proof.recorded and proof.sealed_here:
            again = memo.claimed_tree(paths.workspace, *claims)
            if again == tree and memo.answer_key(paths, ready, harness) == key:
                assert key is not None
                memo.remember_answer(key, answer, claims, tree)
    return (paths, *answer)


def _proved(paths: RecordPaths, harness: Path | None, ready: bool) -> Proof:
    from aidlc_review.review.record.proof import prove_unit

    return prove_unit(paths, harness=harness, thorough=ready)


def verify_proof(
    workspace: Path,
    unit: str | None,
    record: Path | None = None,
    manifest: Path | None = None,
    ready: bool = False,
    harness: Path | None = None,
) -> tuple[RecordPaths, Proof, list[str]]:
    """The unit's record paths, its proof from the bytes, and the reasons verify exits 1."""
    from aidlc_review.review.record.proof import prove_unit

    paths = RecordPaths.resolve(workspace, unit, record, manifest)
    proof = prove_unit(paths, harness=harness, thorough=ready)
    return paths, proof, proof_reasons(paths, proof, ready)


def proof_reasons(paths: RecordPaths, proof: Proof, ready: bool) -> list[str]:
    from aidlc_review.review.findings.verdict import READY

    reasons = [*proof.reasons, *(proof.unprovable if ready else ())]
    if not proof.recorded and not reasons and ready:
        reasons.append(f"{paths.display(paths.findings)}: not reviewed, not READY")
    elif proof.recorded and proof.verdict != READY and (ready or proof.claimed == READY):
        # a record that says READY when the bytes say otherwise does not hold either
        reasons.append(_not_ready(paths, proof))
    return sorted(reasons)


def _not_ready(paths: RecordPaths, proof: Proof) -> str:
    open_ = ", ".join(f"{f.id} {f.severity}" for f in proof.blocking) or "no receipt"
    shown = paths.display(paths.findings)
    return f"{shown}: the verdict recomputed now is {proof.verdict} ({open_}), not READY"
