"""The stage-entry baseline: the workspace's source, the unit's claims and its git base.

Taken once per unit, at the first pass of attempt 1, and kept across attempts: an
out-of-scope edit made during attempt 1 must still show after ``gate
--request-changes``. Every later pass (and ``review verify``) compares the
workspace with it; what changed outside every unit's claims is *drift*, and so is
a path the unit claimed at stage entry that is still on disk but claimed no more.
In a git checkout the baseline also records the unit's base commit, and whatever
differs from it outside every claim is drift too (``git_drift``): that catches
what code generation changed before the first pass.

Another unit's claim exempts a path only while that unit's own review covers it
(``claims_of_other_units``): anyone can write a manifest. One wait is allowed, and only
during the unit's own passes: a path another unit already claimed at stage entry (units
generated one after another, then reviewed one after another), and unchanged since,
does not block the pass before that unit is reviewed; ``review verify`` and every gate
still count it until that unit's review covers it.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from aidlc_review.errors import InvalidInput
from aidlc_review.fsio import dump_json, sha256_file, write_atomic
from aidlc_review.review.inputs.paths import RecordPaths
from aidlc_review.review.inputs.source_manifest import claimed_files, read_source_manifest
from aidlc_review.review.record.seal import ForgedState, check_seal, seal
from aidlc_review.review.record.store import load_receipt
from aidlc_review.review.source.freeze import digest_of, snapshot_source, tool_leftovers
from aidlc_review.review.source.git_drift import (
    Listing,
    changes_since,
    engine_owned,
    list_files,
    resolve_base,
)
from aidlc_review.typed_load import parse_json

CORRUPT_HINT = "delete it and run `review run` again"
NO_REVIEW = "which has no review covering it"
OTHER_BYTES = "whose review covers other contents"


class Baseline(BaseModel):
    """``baseline.json``: what the workspace held when the unit's review began."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    base: str | None = None  # the unit's base commit; None outside git
    # the base was given (``--base``, Bolt, ``base-revision``), not HEAD taken by default:
    # only then are findings on lines the unit did not change pre-existing
    base_given: bool = False
    claimed: list[str] = Field(default_factory=list)
    excluded: list[str] = Field(default_factory=list)
    files: dict[str, str]
    # what other units' manifests claimed at stage entry (reviewed or not)
    others_claimed: list[str] = Field(default_factory=list)
    # True for the baseline a pass works with (``ensure_baseline``), never for one read
    # back to verify (``load_baseline``): only a pass may wait on other units' reviews

    @property
    def digest(self) -> str:
        return digest_of(self.files)


def ensure_baseline(
    paths: RecordPaths, excluded: list[Path], claimed: list[str], base_revision: str | None = None
) -> Baseline:
    """The baseline a pass compares with, recorded now if the unit has none yet (its first
    pass)."""
    baseline = load_baseline(paths)
    if baseline is None:
        others = claims_of_other_units(paths)
        baseline = Baseline(
            files=snapshot_source(paths.workspace, excluded),
            excluded=sorted(paths.display(p) for p in excluded),
            claimed=sorted(claimed),
            base=resolve_base(paths.workspace, base_revision),
            base_given=base_revision is not None,
            others_claimed=sorted(others.proven | others.unproven.keys()),
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


def drift(
    paths: RecordPaths,
    baseline: Baseline,
    claimed: set[str],
    in_pass: bool = False,
    listing: Listing | None = None,
    own: set[str] | None = None,
) -> list[tuple[str, str]]:
    """``(path, "path: what changed")`` for every change outside the unit's claims and the
    claims other units' reviews cover; ``in_pass``: a pass leaves out what ``_awaited``
    names (verify and the gates never do). ``listing``: git's listing of the tree taken
    by the caller with nothing written since, else the tree is listed here; ``own``: what
    the unit's manifest claims now, when the caller has just read it (else read here)."""
    excluded = [paths.workspace / p for p in baseline.excluded]
    excluded.append(paths.record)
    owned = engine_owned(paths.workspace)  # a baseline taken before they were left out
    before = {p: h for p, h in baseline.files.items() if not _under(p, owned)}
    # one listing for the snapshot and the comparison with the base: nothing is written
    # between them (a later drift check lists the tree again)
    if listing is None:
        listing = list_files(paths.workspace.resolve())
    now = snapshot_source(paths.workspace, excluded, listing)
    others = claims_of_other_units(paths)
    claimed = claimed | (own_claims(paths) if own is None else own) | others.proven
    at_entry = set(baseline.claimed)
    found = []
    for rel in sorted((set(before) | set(now)) - claimed):
        if cannot_silence(rel):
            continue
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
            nobody = "this unit" if rel in others.unproven else "any unit"
            found.append((rel, f"{rel}: claimed at stage entry but no longer claimed by {nobody}"))
    seen = {rel for rel, _ in found} | (_awaited(baseline, others, now) if in_pass else set())
    found += [
        d for d in _git_drift(paths, baseline, claimed | at_entry, listing) if d[0] not in seen
    ]
    return [(rel, reason + others.why_not(rel)) for rel, reason in found]


def _awaited(baseline: Baseline, others: OtherClaims, now: dict[str, str]) -> set[str]:
    """In a pass: paths another unit claimed at stage entry and nobody changed since, whose
    claiming unit is not reviewed yet. The pass does not block on them; verify does."""
    waiting = set(baseline.others_claimed) & others.unproven.keys()
    return {rel for rel in waiting if rel in now and now[rel] == baseline.files.get(rel)}


def _git_drift(
    paths: RecordPaths, baseline: Baseline, claimed: set[str], listing: Listing | None
) -> list[tuple[str, str]]:
    """Unclaimed differences between the unit's base commit and the working tree."""
    if baseline.base is None:
        return []
    changes = changes_since(paths.workspace, baseline.base, listing)
    short = baseline.base[:12]
    if changes is None:
        return [("", f"could not compare the workspace with the unit's base {short} (git)")]
    exempt = [*(p for p in (_prefix(paths, paths.record),) if p), *engine_owned(paths.workspace)]
    return [
        (rel, f"{rel}: unclaimed source {kind} since the unit's base {short}")
        for rel, kind in sorted(changes.items())
        if rel not in claimed
        and not tool_leftovers().search(rel)
        and not _under(rel, exempt)
        and not cannot_silence(rel)
    ]


# Files no sensor of the review reads and that cannot change what one reports: CI
# workflows and hook configurations. Adding one after a review (a team's first CI job or
# pre-commit config) is not an unclaimed change to the reviewed source. The tools' own
# configs (pyproject.toml, ruff.toml, mypy.ini, setup.cfg, .gitignore ...) stay drift.
CANNOT_SILENCE = (
    re.compile(r"\.github/workflows/[^/]+\.ya?ml"),
    re.compile(r"\.pre-commit-config\.ya?ml"),
    re.compile(r"\.gitlab-ci\.ya?ml"),
)


def cannot_silence(rel: str) -> bool:
    return any(pattern.fullmatch(rel) for pattern in CANNOT_SILENCE)


def _under(rel: str, prefixes: list[str]) -> bool:
    return any(rel == x or rel.startswith(x + "/") for x in prefixes)


def _prefix(paths: RecordPaths, path: Path) -> str | None:
    try:
        rel = path.resolve().relative_to(paths.workspace).as_posix()
    except ValueError:
        return None
    return None if rel == "." else rel


def own_claims(paths: RecordPaths) -> set[str]:
    """What the unit's manifest claims now (a claim added since the receipt is named by
    freshness, not as drift)."""
    try:
        return set(_claims(paths, paths.manifest))
    except InvalidInput:
        return set()


@dataclass(frozen=True)
class OtherClaims:
    """What other units' manifests claim. A path is ``proven`` (exempt from drift) when a
    claiming unit has its own review covering it: a receipt sealed on this machine that
    holds the path with the bytes on disk now. Writing a manifest proves nothing: anyone
    may write one, for a unit that never had a review."""

    proven: frozenset[str] = frozenset()
    unproven: dict[str, list[str]] = field(default_factory=dict)  # path: ["unit, why not"]

    def why_not(self, rel: str) -> str:
        """`` (claimed by u2, which has no review covering it)``, or "" if no unit claims it."""
        reasons = self.unproven.get(rel, [])
        return f" ({'; '.join(f'claimed by {r}' for r in reasons)})" if reasons else ""


def claims_of_other_units(paths: RecordPaths) -> OtherClaims:
    proven: set[str] = set()
    unproven: dict[str, list[str]] = defaultdict(list)
    for manifest in paths.all_manifests():
        if manifest == paths.manifest:
            continue
        unit = _unit_of(paths, manifest)
        try:
            files = _claims(paths, manifest)
        except InvalidInput:
            continue
        reviewed = _reviewed_files(paths, unit)
        for rel in files:
            target = paths.workspace / rel
            if rel not in reviewed:
                unproven[rel].append(f"{unit or 'the stage-level run'}, {NO_REVIEW}")
            elif target.is_file() and sha256_file(target) == reviewed[rel]:
                proven.add(rel)
            else:
                unproven[rel].append(f"{unit or 'the stage-level run'}, {OTHER_BYTES}")
    return OtherClaims(frozenset(proven), {p: u for p, u in unproven.items() if p not in proven})


def _reviewed_files(paths: RecordPaths, unit: str | None) -> dict[str, str]:
    """The files (and their hashes) the unit's own sealed receipt covers; none without one."""
    try:
        receipt = load_receipt(RecordPaths.resolve(paths.workspace, unit, paths.record, None))
    except (ForgedState, InvalidInput):
        return {}  # an agent rewrote it, or it is no receipt: it covers nothing
    return dict(receipt.files) if receipt is not None and receipt.unit == unit else {}


def _unit_of(paths: RecordPaths, manifest: Path) -> str | None:
    """``<record>/construction/<unit>/code-generation/source-manifest.json``: the unit; the
    stage-level manifest sits one level up."""
    folder = manifest.parent.parent
    return None if folder == paths.record / "construction" else folder.name


def _claims(paths: RecordPaths, manifest: Path) -> list[str]:
    return claimed_files(read_source_manifest(manifest, paths.workspace), paths.workspace)
