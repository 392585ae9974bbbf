"""Finalize: the three checks a unit must pass before its branch may be merged.

1. A terminal review receipt bound to exactly the bytes being merged: the receipt is read
   from the candidate tree itself and must agree with the findings it closes (attempt,
   verdict, findings digest); the manifest and every claimed file in that tree must hash
   to what the receipt recorded (and no claimed file may be missing from it).
2. The base-to-candidate diff is contained by the unit's claims. The unit's own record
   directory (``<record>/construction/<unit>/``: code-generation and code-review artifacts)
   is allowed too, so the review history lands on the target branch with the code. Nothing
   else under the record dir may change, claimed or not (a unit rewriting another unit's
   review would forge it), and inside its own record only plain documents (``*.md``,
   ``*.json``, not executable) may change: that directory is merged without being claimed,
   so it must not carry anything that runs.
3. The one verification every approving or merging path calls
   (``review.record.verify.verify_review``) passes on the worktree: the review is fresh, and a unit
   that would merge without a person is READY as that verification decides, whatever the
   documents say. Its every reason is a refusal.

The candidate tree is the worktree as it is now, minus engine state and tool leftovers,
which are never merged. A refusal names the unit and the offending paths; the worktree
is left as it is for inspection.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from aidlc_review.bolt.git import Git
from aidlc_review.errors import AidlcError
from aidlc_review.fsio import sha256_bytes
from aidlc_review.sensors.descriptors import cache_names

RECORD = "aidlc-docs"
ENGINE = ".aidlc-engine"
DOCUMENTS = (".md", ".json")
_TEMP = re.compile(r"^\..+\.[A-Za-z0-9_]{8}\.tmp$")  # fsio.write_atomic's mkstemp names
PLAIN_FILE = "100644"
# What the interpreter leaves in a worktree; the review's tools leave their descriptors'
# ``caches`` (``leftover_globs``). Neither source nor record: never merged.
_BYTECODE_GLOBS = ("**/__pycache__/**", "**/*.pyc")


@functools.cache
def leftover_globs() -> tuple[str, ...]:
    """Glob pathspecs of every tool leftover: a cache name as a file and as a folder."""
    caches = [glob for name in cache_names() for glob in (f"**/{name}", f"**/{name}/**")]
    return (*caches, *_BYTECODE_GLOBS)


@dataclass(frozen=True)
class Candidate:
    tree: str
    verdict: str | None
    problems: tuple[str, ...]  # empty = may be merged

    @property
    def ok(self) -> bool:
        return not self.problems


def unit_record(unit: str) -> str:
    return f"{RECORD}/construction/{unit}"


def snapshot_excludes() -> list[str]:
    """Pathspecs that keep engine state and tool leftovers out of the candidate tree."""
    return [f":(exclude){RECORD}/{ENGINE}"] + [f":(exclude,glob){g}" for g in leftover_globs()]


def remove_stale_temps(record: Path) -> list[Path]:
    """Delete the temp files an atomic write killed mid-way left in the unit's record.

    Only this unit's review writes there and it has finished when the unit is finalized,
    so a ``.<name>.<random>.tmp`` beside its target is a leftover, never a write in flight.
    """
    if not record.is_dir():
        return []
    stale = [
        p
        for p in record.rglob(".*.tmp")
        if p.is_file() and not p.is_symlink() and _TEMP.match(p.name)
    ]
    for path in stale:
        path.unlink(missing_ok=True)
    return stale


def check_candidate(git: Git, unit: str, base: str) -> Candidate:
    """Freeze the worktree into a tree object and check it against receipt and claims."""
    remove_stale_temps(git.cwd / RECORD)
    tree = git.snapshot_tree(snapshot_excludes())
    record = unit_record(unit)
    manifest_path = f"{record}/code-generation/source-manifest.json"
    findings_path = f"{record}/code-review/code-review-findings.json"
    receipt, missing = _receipt(git.blob(tree, findings_path), findings_path)
    if receipt is None:
        return Candidate(tree, None, (missing or "no review receipt",))
    manifest_raw = git.blob(tree, manifest_path)
    if manifest_raw is None:
        return Candidate(tree, receipt.get("verdict"), (f"no source manifest at {manifest_path}",))
    claims = _claims(manifest_raw)
    problems = _unbound(git, tree, receipt, manifest_path, manifest_raw, claims)
    changed = git.changed_paths(base, tree)
    problems.extend(_record_problems(git, tree, changed, record))
    unclaimed = [p for p in changed if not _contained(p, claims, record)]
    if unclaimed:
        problems.append(
            "diff touches paths its source manifest does not claim: " + ", ".join(unclaimed)
        )
    if not problems:  # what the tree checks found, the verification would only repeat
        problems = _verification(git.cwd, unit, receipt.get("verdict"))
    return Candidate(tree, receipt.get("verdict"), tuple(problems))


def _verification(worktree: Path, unit: str, verdict: str | None) -> list[str]:
    """Why the one verification refuses the unit's review in its worktree. READY is asked
    of a unit that merges without a person; a held one only merges when a person approves
    it at the gate, so for it only freshness is."""
    from aidlc_review.review.record.verify import verify_review

    try:
        reasons = verify_review(worktree, unit, ready=verdict == "READY")
    except AidlcError as exc:
        reasons = [str(exc)]
    return [f"the review does not verify: {reason}" for reason in reasons]


def _receipt(raw: bytes | None, findings_path: str) -> tuple[dict[str, Any] | None, str | None]:
    """The terminal receipt of the current attempt, checked against its own findings."""
    from pydantic import ValidationError

    from aidlc_review.review.record.models import FindingsDocument
    from aidlc_review.review.record.receipt import findings_digest

    if raw is None:
        return None, f"no review findings at {findings_path}"
    try:
        doc = FindingsDocument.model_validate_json(raw)
    except ValidationError:
        return None, f"unreadable review findings at {findings_path}"
    receipt = doc.receipt
    if receipt is None or receipt.attempt != doc.attempt:
        return None, f"no terminal review receipt in {findings_path}"
    last = doc.latest
    verdicts = {receipt.verdict, doc.verdict, last.verdict if last else None}
    if len(verdicts) != 1 or receipt.findings_digest != findings_digest(doc.passes, doc.waivers):
        return None, f"the review receipt in {findings_path} does not match its findings"
    return receipt.model_dump(mode="json", by_alias=True), None


def _claims(manifest_raw: bytes) -> list[str]:
    """Claimed paths (dir claims keep their '/'); repo-prefixed like the runtime does.

    Read with the manifest's own model; one that does not validate claims nothing, so
    every changed path is unclaimed and finalize refuses (it fails closed)."""
    from pydantic import ValidationError

    from aidlc_review.review.inputs.source_manifest import ManifestFile

    try:
        document = ManifestFile.model_validate_json(manifest_raw)
    except ValidationError:
        return []
    return [f"{w.repo}/{w.path}" if w.repo else w.path for w in document.writes]


def _unbound(
    git: Git,
    tree: str,
    receipt: dict[str, Any],
    manifest_path: str,
    manifest_raw: bytes,
    claims: list[str],
) -> list[str]:
    changed: list[str] = []
    if sha256_bytes(manifest_raw) != receipt.get("manifest_digest"):
        changed.append(manifest_path)
    recorded: dict[str, str] = receipt.get("files") or {}
    present = set(git.files_under(tree, [c.rstrip("/") for c in claims]))
    for path in sorted(present | set(recorded)):
        blob = git.blob(tree, path) if path in present else None
        if blob is None or path not in recorded or sha256_bytes(blob) != recorded[path]:
            changed.append(path)
    return [f"changed after its review receipt: {', '.join(changed)}"] if changed else []


def _record_problems(git: Git, tree: str, changed: list[str], record: str) -> list[str]:
    """Changes to the record dir a unit may not make: outside its own record, or not a plain
    document inside it (a deleted document has no mode left to check)."""
    in_record = [p for p in changed if PurePosixPath(p).is_relative_to(RECORD)]
    foreign = [p for p in in_record if not PurePosixPath(p).is_relative_to(record)]
    own = [p for p in in_record if p not in foreign]
    modes = git.modes(tree, own)
    not_documents = [
        p
        for p in own
        if PurePosixPath(p).suffix not in DOCUMENTS or modes.get(p, PLAIN_FILE) != PLAIN_FILE
    ]
    problems = []
    if foreign:
        problems.append(f"diff touches record paths outside {record}/: {', '.join(foreign)}")
    if not_documents:
        problems.append(
            "diff touches files in its record that are not plain documents "
            f"(*.md, *.json, not executable): {', '.join(not_documents)}"
        )
    return problems


def _contained(path: str, claims: list[str], record: str) -> bool:
    if PurePosixPath(path).is_relative_to(record):
        return True
    return any(path == c or (c.endswith("/") and path.startswith(c)) for c in claims)
