"""The stage-entry baseline: the workspace's source, the unit's claims and its git base.

Taken once per unit, at the first pass of attempt 1, and kept across attempts: an
out-of-scope edit made during attempt 1 must still show after ``gate
--request-changes``. Every later pass (and ``review verify``) compares the
workspace with it; what changed outside every unit's claims is *drift*, and so is
a path the unit claimed at stage entry that is still on disk but claimed no more.
In a git checkout the baseline also records the unit's base commit, and whatever
differs from it outside every claim is drift too (``git_drift``): that catches
what code generation changed before the first pass.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from aidlc_review.errors import InvalidInput
from aidlc_review.fsio import dump_json, write_atomic
from aidlc_review.review.freeze import TOOL_LEFTOVERS, digest_of, snapshot_source
from aidlc_review.review.git_drift import changes_since, engine_owned, resolve_base
from aidlc_review.review.paths import RecordPaths
from aidlc_review.review.seal import check_seal, seal
from aidlc_review.review.source_manifest import claimed_files, read_source_manifest
from aidlc_review.typed_load import parse_json

CORRUPT_HINT = "delete it and run `review run` again"


class Baseline(BaseModel):
    """``baseline.json``: what the workspace held when the unit's review began."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    base: str | None = None  # the unit's base commit; None outside git
    claimed: list[str] = Field(default_factory=list)
    excluded: list[str] = Field(default_factory=list)
    files: dict[str, str]

    @property
    def digest(self) -> str:
        return digest_of(self.files)


def ensure_baseline(
    paths: RecordPaths, excluded: list[Path], claimed: list[str], base_revision: str | None = None
) -> Baseline:
    """The unit's baseline, recorded now if the unit has none yet (its first pass)."""
    found = load_baseline(paths)
    if found is not None:
        return found
    baseline = Baseline(
        files=snapshot_source(paths.workspace, excluded),
        excluded=sorted(paths.display(p) for p in excluded),
        claimed=sorted(claimed),
        base=resolve_base(paths.workspace, base_revision),
    )
    text = dump_json(baseline.model_dump(mode="json"))
    seal(paths, paths.baseline, text.encode())
    write_atomic(paths.baseline, text)
    return baseline


def load_baseline(paths: RecordPaths) -> Baseline | None:
    if not paths.baseline.is_file():
        return None
    raw = paths.baseline.read_bytes()
    baseline = parse_json(
        Baseline, raw, str(paths.baseline), what="stage-entry baseline", hint=CORRUPT_HINT
    )
    check_seal(paths, paths.baseline, raw)
    return baseline


def drift(paths: RecordPaths, baseline: Baseline, claimed: set[str]) -> list[tuple[str, str]]:
    """``(path, "path: what changed")`` for every change outside every unit's claims."""
    excluded = [paths.workspace / p for p in baseline.excluded]
    excluded.append(paths.record)
    before = baseline.files
    now = snapshot_source(paths.workspace, excluded)
    claimed = claimed | claims_of_every_unit(paths)
    at_entry = set(baseline.claimed)
    found = []
    for rel in sorted((set(before) | set(now)) - claimed):
        if rel not in now and rel in at_entry:
            continue  # the unit removed a file of its own, and its claim with it
        if rel not in now:
            found.append((rel, f"{rel}: unclaimed source deleted since the stage-entry baseline"))
        elif rel not in before:
            found.append((rel, f"{rel}: unclaimed source added since the stage-entry baseline"))
        elif before[rel] != now[rel]:
            found.append((rel, f"{rel}: unclaimed source changed since the stage-entry baseline"))
    for rel in sorted(at_entry - claimed):
        if (paths.workspace / rel).is_file():
            found.append((rel, f"{rel}: claimed at stage entry but no longer claimed by any unit"))
    seen = {rel for rel, _ in found}
    found += [d for d in _git_drift(paths, baseline, claimed | at_entry) if d[0] not in seen]
    return found


def _git_drift(paths: RecordPaths, baseline: Baseline, claimed: set[str]) -> list[tuple[str, str]]:
    """Unclaimed differences between the unit's base commit and the working tree."""
    if baseline.base is None:
        return []
    changes = changes_since(paths.workspace, baseline.base)
    short = baseline.base[:12]
    if changes is None:
        return [("", f"could not compare the workspace with the unit's base {short} (git)")]
    exempt = [*(p for p in (_prefix(paths, paths.record),) if p), *engine_owned(paths.workspace)]
    return [
        (rel, f"{rel}: unclaimed source {kind} since the unit's base {short}")
        for rel, kind in sorted(changes.items())
        if rel not in claimed
        and not TOOL_LEFTOVERS.search(rel)
        and not any(rel == x or rel.startswith(x + "/") for x in exempt)
    ]


def _prefix(paths: RecordPaths, path: Path) -> str | None:
    try:
        rel = path.resolve().relative_to(paths.workspace).as_posix()
    except ValueError:
        return None
    return None if rel == "." else rel


def claims_of_every_unit(paths: RecordPaths) -> set[str]:
    claimed: set[str] = set()
    for manifest in paths.all_manifests():
        try:
            claimed.update(
                claimed_files(read_source_manifest(manifest, paths.workspace), paths.workspace)
            )
        except InvalidInput:
            continue
    return claimed
