"""Is a receipt still about the bytes on disk? Every reason it is not, path first."""

from __future__ import annotations

from aidlc_review.errors import InvalidInput
from aidlc_review.fsio import sha256_bytes, sha256_file
from aidlc_review.review.inputs.paths import RecordPaths
from aidlc_review.review.inputs.source_manifest import (
    claimed_files,
    read_source_manifest,
    unreadable_claims,
)
from aidlc_review.review.record.models import Receipt
from aidlc_review.review.source.baseline import drift, load_baseline


def stale_reasons(paths: RecordPaths, receipt: Receipt | None, drift: bool = True) -> list[str]:
    """``[]`` when fresh; otherwise one ``path: what changed`` line per problem, sorted.

    ``drift=False`` for a receipt this machine did not issue: its stage-entry baseline is
    the other machine's, so unclaimed changes are not checked here (``review.record.proof``
    says so).
    """
    if receipt is None and paths.receipt.is_file():
        return [
            f"{paths.display(paths.receipt)}: not sealed by aidlc-review on this machine "
            "(written elsewhere, or its seal was removed); run `aidlc-review review run`"
        ]
    if receipt is None:
        return [f"{paths.display(paths.findings)}: no receipt; run `aidlc-review review run` first"]
    reasons = _manifest_reasons(paths, receipt)
    claimed, unreadable, current = _claimed_reasons(paths, receipt)
    reasons += claimed
    if drift:  # an unreadable claimed entry is claimed: named once, above, not as unclaimed
        reasons += _unclaimed_reasons(paths, set(receipt.files) | unreadable, current)
    return sorted(set(reasons))


def _manifest_reasons(paths: RecordPaths, receipt: Receipt) -> list[str]:
    shown = paths.display(paths.manifest)
    if not paths.manifest.is_file():
        return [f"{shown}: source manifest deleted since the receipt"]
    if sha256_bytes(paths.manifest.read_bytes()) != receipt.manifest_digest:
        return [f"{shown}: source manifest changed since the receipt"]
    return []


def _claimed_reasons(
    paths: RecordPaths, receipt: Receipt
) -> tuple[list[str], set[str], set[str] | None]:
    """The reasons about claimed files, the claimed entries nobody can read, and what the
    manifest claims now (None when its claims cannot be checked)."""
    reasons = []
    for rel, digest in receipt.files.items():
        target = paths.workspace / rel
        if not target.is_file():
            reasons.append(f"{rel}: claimed file deleted since the receipt")
        elif sha256_file(target) != digest:
            reasons.append(f"{rel}: claimed file changed since the receipt")
    try:
        manifest = read_source_manifest(paths.manifest, paths.workspace)
        current = set(claimed_files(manifest, paths.workspace))
        unreadable = unreadable_claims(manifest, paths.workspace)
    except InvalidInput as exc:
        # the claims no longer hold (a link pointing out, a path gone): nothing is fresh
        shown = paths.display(paths.manifest)
        return [*reasons, f"{shown}: claims cannot be checked: {exc}"], set(), None
    for rel in current - set(receipt.files):
        reasons.append(f"{rel}: newly claimed since the receipt")
    reasons += [f"{rel}: claimed but {why}" for rel, why in unreadable.items()]
    return reasons, set(unreadable), current


def _unclaimed_reasons(paths: RecordPaths, claimed: set[str], own: set[str] | None) -> list[str]:
    baseline = load_baseline(paths)
    if baseline is None:
        return [f"{paths.display(paths.baseline)}: stage-entry baseline missing"]
    # the manifest was read a moment ago (``_claimed_reasons``): drift need not read it again
    return [reason for _, reason in drift(paths, baseline, claimed, own=own)]
