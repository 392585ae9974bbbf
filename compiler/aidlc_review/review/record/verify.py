"""``review verify``: the one verification (``review.record.proof``) as ``path: reason`` lines.

The pre-commit hook, CI and Bolt ask it too. It recomputes: the claimed bytes against the
receipt, the sensors on them (cached by content), the verdict from the findings and the
waivers in force; a stored verdict or digest that disagrees is a reason, never an answer.
"""

from __future__ import annotations

from pathlib import Path

from aidlc_review.review.findings.verdict import READY
from aidlc_review.review.inputs.paths import RecordPaths
from aidlc_review.review.record.proof import Proof, prove_unit


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
    return verify_proof(workspace, unit, record, manifest, ready, harness)[2]


def verify_proof(
    workspace: Path,
    unit: str | None,
    record: Path | None = None,
    manifest: Path | None = None,
    ready: bool = False,
    harness: Path | None = None,
) -> tuple[RecordPaths, Proof, list[str]]:
    """The unit's record paths, its proof from the bytes, and the reasons verify exits 1."""
    paths = RecordPaths.resolve(workspace, unit, record, manifest)
    proof = prove_unit(paths, harness=harness, thorough=ready)
    return paths, proof, proof_reasons(paths, proof, ready)


def proof_reasons(paths: RecordPaths, proof: Proof, ready: bool) -> list[str]:
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
