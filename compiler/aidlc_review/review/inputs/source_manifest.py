"""The unit's ``source-manifest.json``: which source code-generation claims to have written.

Written by code-generation, read here for the review. Every claim is checked to
name something that exists inside the workspace, so nothing downstream (hashing,
sensors, the reviewer brief) can be pointed at a file outside it, symlinks included,
nor at git's own files (``.git/config``, ``sub/.git/hooks/x``). A claimed name that holds
a secret is refused too: claimed paths are quoted in findings, reports and on stdout.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import Literal

from pydantic import BaseModel, ConfigDict, field_validator

from aidlc_review.errors import InvalidInput
from aidlc_review.typed_load import loose_json, parse_json

MANIFEST_VERSION = 1
MANIFEST_STAGE = "code-generation"
SKIPPED_DIRS = frozenset({".git", "__pycache__"})


@dataclass(frozen=True)
class Claim:
    path: str  # as written; a directory claim ends with '/'
    repo: str | None
    is_dir: bool

    @property
    def relative(self) -> str:
        """The claim as a workspace-relative POSIX path (no trailing '/')."""
        path = PurePosixPath(self.path.rstrip("/"))
        return (PurePosixPath(self.repo) / path).as_posix() if self.repo else path.as_posix()


@dataclass(frozen=True)
class SourceManifest:
    path: Path
    raw: bytes
    stage: str
    unit: str | None
    version: int
    claims: tuple[Claim, ...]


class _Refusal(Exception):
    def __init__(self, where: str, message: str):
        super().__init__(message)
        self.where = where
        self.message = message


def read_source_manifest(path: Path, workspace: Path) -> SourceManifest:
    """Read and check a source manifest; raise ``InvalidInput("<path>: $.key: message")``."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InvalidInput(f"{path}: cannot read the source manifest: {exc.strerror}") from None
    from aidlc_review.upstream.manifest import engine_manifest  # the engine's, by its schema

    known = engine_manifest(raw, workspace)
    if known is not None:  # bound to the bytes as written; every claim checked as below
        return replace(parse_source_manifest(known, path, workspace), raw=raw)
    return parse_source_manifest(raw, path, workspace)


def manifest_for_paths(
    paths: list[str], workspace: Path, unit: str | None = None
) -> SourceManifest:
    """An in-memory manifest claiming ``paths``, checked exactly like one read from disk."""
    data: dict[str, object] = {
        "stage": MANIFEST_STAGE,
        "version": MANIFEST_VERSION,
        "writes": [{"path": p} for p in paths],
    }
    if unit is not None:
        data["unit"] = unit
    return parse_source_manifest(json.dumps(data).encode(), Path("<command line>"), workspace)


class _Write(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    path: str
    repo: str | None = None

    @field_validator("path", "repo")
    @classmethod
    def _relative(cls, value: str | None) -> str | None:
        if value is None:
            return None
        _check_no_secret(value)  # first: every other message quotes the value
        return _check_relative(value)


class ManifestFile(BaseModel):
    """``source-manifest.json`` as written: which paths code generation claims."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    stage: Literal["code-generation"]
    version: Literal[1]
    unit: str | None = None
    writes: list[_Write]

    @field_validator("unit")
    @classmethod
    def _unit(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError(f"must be a non-empty string when present, got {json.dumps(value)}")
        return value


def parse_source_manifest(raw: bytes, path: Path, workspace: Path) -> SourceManifest:
    document = _validated(raw, path)
    try:
        claims = _checked_claims(document, workspace.resolve())
    except _Refusal as exc:
        raise InvalidInput(f"{path}: {exc.where}: {exc.message}") from None
    return SourceManifest(path, raw, document.stage, document.unit, document.version, tuple(claims))


def _validated(raw: bytes, path: Path) -> ManifestFile:
    """The document the bytes hold, validated once per process: a pass reads its manifest
    several times (the request, the pass, the drift checks) and validation, which scans
    every claimed name for secrets, depends on nothing but the bytes. What the claims name
    on disk is checked again at every read (``_checked_claims``)."""
    key = (raw, str(path))
    document = _VALIDATED.get(key)
    if document is None:
        _scan_names(raw)
        document = parse_json(ManifestFile, raw, str(path))
        while len(_VALIDATED) >= 16:
            _VALIDATED.pop(next(iter(_VALIDATED)))
        _VALIDATED[key] = document
    return document


_VALIDATED: dict[tuple[bytes, str], ManifestFile] = {}


def _scan_names(raw: bytes) -> None:
    """Every claimed name scanned for secrets in one go (one look-up in the clean names'
    memo, detect-secrets loaded at most once) before the model checks each name; bytes that
    are not a manifest are left to the model, which says what is wrong."""
    data = loose_json(raw)
    writes = data.get("writes") if isinstance(data, dict) else None
    if not isinstance(writes, list):
        return
    names = [
        value
        for entry in writes
        if isinstance(entry, dict)
        for value in (entry.get("path"), entry.get("repo"))
        if isinstance(value, str)
    ]
    new = [name for name in dict.fromkeys(names) if name not in _SCANNED]
    if new:
        from aidlc_review.sensors.redact import scrub_many

        _SCANNED.update((n, shown) for n, (shown, _) in zip(new, scrub_many(new), strict=True))


def _checked_claims(document: ManifestFile, root: Path) -> list[Claim]:
    in_worktree = (root / ".git").is_file()
    claims: list[Claim] = []
    seen: dict[str, int] = {}
    for i, entry in enumerate(document.writes):
        where = f"$.writes[{i}]"
        if entry.repo is not None and in_worktree:
            raise _Refusal(f"{where}.repo", "repo claims are not allowed inside a git worktree")
        claim = _checked_claim(Claim(entry.path, entry.repo, entry.path.endswith("/")), where, root)
        key = claim.relative
        if key in seen:
            raise _Refusal(f"{where}.path", f"duplicate of $.writes[{seen[key]}] ({key!r})")
        seen[key] = i
        claims.append(claim)
    return claims


def _checked_claim(claim: Claim, where: str, root: Path) -> Claim:
    text = claim.path
    resolved = (root / claim.relative).resolve()
    if not resolved.is_relative_to(root):
        raise _Refusal(f"{where}.path", f"{claim.relative!r} resolves outside the workspace")
    if _in_git_dir(resolved.relative_to(root).parts):
        raise _Refusal(f"{where}.path", f"{claim.relative!r} resolves into a .git directory")
    if claim.is_dir and not resolved.is_dir():
        raise _Refusal(
            f"{where}.path", f"{claim.relative + '/'!r} is not a directory in the workspace"
        )
    if not claim.is_dir:
        if resolved.is_dir():
            raise _Refusal(f"{where}.path", f"{text!r} is a directory; claim it as {text + '/'!r}")
        if not resolved.is_file():
            raise _Refusal(f"{where}.path", f"{claim.relative!r} does not exist in the workspace")
    return claim


def _check_relative(value: str) -> str:
    """A claimed path as the manifest may write it (a ``ValueError`` names what is wrong)."""
    if not value.strip("/"):
        raise ValueError(f"must be a non-empty relative path, got {json.dumps(value)}")
    if any(not c.isprintable() for c in value):
        raise ValueError(f"must not contain control characters, got {value!r}")
    if value.startswith("/") or "\\" in value or (len(value) > 1 and value[1] == ":"):
        raise ValueError(f"must be relative to the workspace, got {value!r}")
    parts = value.rstrip("/").split("/")
    if ".." in parts:
        raise ValueError(f"must not contain '..', got {value!r}")
    if "" in parts or "." in parts:
        raise ValueError(f"must be a normalised path (no '//' or './'), got {value!r}")
    if _in_git_dir(parts):
        raise ValueError(f"must not name git's own files (a .git component), got {value!r}")
    return value


def _in_git_dir(parts: tuple[str, ...] | list[str]) -> bool:
    """A ``.git`` component (any case: macOS and Windows fold it) is git's, never source."""
    return any(part.casefold() == ".git" for part in parts)


def _check_no_secret(value: str) -> None:
    """A claimed name is shown everywhere the review reports; one holding a secret is
    refused naming only detect-secrets' marker for it, never the value."""
    shown = _scrubbed(value)
    if shown != value:  # a secret, or a name too slow to check (never let through)
        raise ValueError(f"names a secret ({shown}); rename it so no secret is in its path")


def _scrubbed(value: str) -> str:
    """A pass reads the manifest several times: each name is scanned once per process."""
    if value not in _SCANNED:
        from aidlc_review.sensors.redact import scrub  # detect-secrets: only when one is read

        _SCANNED[value] = scrub(value)[0]
    return _SCANNED[value]


_SCANNED: dict[str, str] = {}  # name -> as shown (itself when clean); the scan is deterministic


def claimed_files(manifest: SourceManifest, workspace: Path) -> list[str]:
    """Sorted workspace-relative POSIX paths of every claimed file, directory claims expanded.

    Each path is re-checked here (not only when the manifest was read) because the
    tree may have changed since. A claim never covers less than it says: a symlinked
    directory inside a claimed one is followed when it stays inside the workspace and
    refused when it points out; entries that are not regular files are left to
    ``unreadable_claims``, which names them.
    """
    root = workspace.resolve()
    found: set[str] = set()
    for claim in manifest.claims:
        if claim.is_dir:
            found.update(rel for rel, path in _entries(root, claim.relative) if path.is_file())
        else:
            found.add(_inside(root, claim.relative))
    return sorted(found)


def unreadable_claims(manifest: SourceManifest, workspace: Path) -> dict[str, str]:
    """Entries under claimed directories that cannot be reviewed, with why: a dangling
    symlink, a FIFO, a socket or a device is claimed source nobody can read."""
    root = workspace.resolve()
    found: dict[str, str] = {}
    for claim in manifest.claims:
        if claim.is_dir:
            for rel, path in _entries(root, claim.relative):
                if not path.is_file():
                    found[rel] = "dangling symlink" if path.is_symlink() else "not a regular file"
    return found


def _entries(root: Path, relative: str) -> list[tuple[str, Path]]:
    """Every non-directory entry under a claimed directory, symlinked folders followed."""
    _inside(root, relative)
    entries: list[tuple[str, Path]] = []
    seen = {(root / relative).resolve()}
    for folder, dirs, names in os.walk(root / relative, followlinks=True):
        here = Path(folder)
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and _follow(root, here / d, seen))
        for name in sorted(names):
            path = here / name
            rel = path.relative_to(root).as_posix()
            if path.exists():
                _inside(root, rel)
            entries.append((rel, path))
    return entries


def _follow(root: Path, folder: Path, seen: set[Path]) -> bool:
    """Walk into ``folder`` unless already walked (a symlink loop); refuse one pointing out."""
    target = folder.resolve()
    if not target.is_relative_to(root):
        rel = folder.relative_to(root).as_posix()
        raise InvalidInput(
            f"{rel}: a symlinked directory inside a claimed directory points outside the "
            f"workspace ({target}); its files cannot be reviewed: remove the link or move "
            "the files into the workspace"
        )
    if target in seen:
        return False
    seen.add(target)
    return True


def _inside(root: Path, relative: str) -> str:
    resolved = (root / relative).resolve()
    if not resolved.is_relative_to(root):
        raise InvalidInput(f"{relative}: resolves outside the workspace {root}")
    return PurePosixPath(relative).as_posix()
