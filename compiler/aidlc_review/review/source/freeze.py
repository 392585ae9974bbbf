"""Freezing the candidate: content hashes of the claimed files and of the workspace source.

The unit source fingerprint is ``sha256(manifest bytes + sorted (path, hash))``.
The stage-entry baseline hashes the workspace's application source and config
(what git would track, by the tree's own ``.gitignore`` files only, plus the tools'
config files; else every file, dot-files included), leaving out the record dir, the
harness, VCS and tool caches and what only an engine writes (``git_drift.engine_owned``:
upstream's ``aidlc/`` tree and its Bolt worktrees), so the runtime and ``review verify``
can see changes no unit claims.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from aidlc_review.fsio import canonical_json, sha256_bytes, sha256_file
from aidlc_review.review.inputs.source_manifest import (
    SourceManifest,
    claimed_files,
    unreadable_claims,
)
from aidlc_review.review.source.git_drift import Listing, engine_owned, list_files
from aidlc_review.review.source.tool_names import tool_names

# Folders that are never source: VCS, environments, build output; plus every tool's
# caches (its descriptor's ``caches``)
_NOT_SOURCE_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".venv",
        "venv",
        ".tox",
        ".nox",
        ".hypothesis",
        "__pycache__",
        "node_modules",
        "build",
        "dist",
    }
)


@functools.cache
def skipped_dirs() -> frozenset[str]:
    """The folders a walk of the workspace never enters (the descriptors' caches, from their
    sealed memo when this machine has read them: ``tool_names``)."""
    return _NOT_SOURCE_DIRS | {n for n in tool_names().caches if "*" not in n}


# The checkers' config files: editing one can silence a sensor, so they are always
# watched at the workspace root, even when git ignores them: every literal name a tool
# descriptor's ``config`` names, and these, which no descriptor describes (the hooks'
# config, the secret baseline, a config some other checker reads)
_OTHER_CONFIG_FILES = (".flake8", ".pre-commit-config.yaml", ".secrets.baseline")


@functools.cache
def config_files() -> tuple[str, ...]:
    return tuple(sorted({*_OTHER_CONFIG_FILES, *tool_names().configs}))


@functools.cache
def tool_leftovers() -> re.Pattern[str]:
    """What tools leave behind while checking is not source (a coverage run must not
    make the review it is part of look stale)."""
    caches = "|".join(re.escape(n).replace(r"\*", ".*") for n in tool_names().caches)
    return re.compile(rf"(^|/)((?:{caches})(/.*)?|__pycache__/.*|.*\.pyc)$")


@dataclass(frozen=True)
class Frozen:
    manifest_digest: str
    files: dict[str, str]
    fingerprint: str
    unreadable: dict[str, str] = field(default_factory=dict)  # claimed, but cannot be read

    @property
    def claimed(self) -> set[str]:
        """Every path the unit claims, readable or not: none of them is unclaimed drift."""
        return set(self.files) | set(self.unreadable)


def freeze_unit(manifest: SourceManifest, workspace: Path) -> Frozen:
    unreadable = unreadable_claims(manifest, workspace)
    files: dict[str, str] = {}
    for path in claimed_files(manifest, workspace):
        try:
            files[path] = sha256_file(workspace / path)
        except OSError as exc:
            unreadable[path] = f"cannot be read ({exc.strerror})"
    marked = {**files, **{p: f"unreadable:{why}" for p, why in unreadable.items()}}
    fingerprint = source_fingerprint(manifest.raw, marked)
    return Frozen(sha256_bytes(manifest.raw), files, fingerprint, unreadable)


def source_fingerprint(manifest_raw: bytes, files: dict[str, str]) -> str:
    digest = hashlib.sha256(manifest_raw)
    for path, content in sorted(files.items()):
        digest.update(b"\0" + path.encode() + b"\0" + content.encode())
    return "sha256:" + digest.hexdigest()


def digest_of(data: object) -> str:
    return sha256_bytes(canonical_json(data))


def snapshot_source(
    workspace: Path, excluded: list[Path], listing: Listing | None = None
) -> dict[str, str]:
    """Hash every application source file of the workspace, sorted by path. ``listing``:
    git's listing of the tree taken just now by the caller (nothing written since), else
    one is taken here."""
    root = workspace.resolve()
    prefixes = [x for x in (_relative_prefix(root, path) for path in excluded) if x is not None]
    prefixes += engine_owned(root)
    if listing is None:
        listing = list_files(root)  # what the tree's own .gitignore files leave out stays out
    paths = set(listing.every) if listing is not None else set(_walk_files(root))
    paths |= {name for name in config_files() if (root / name).is_file()}
    kept = [
        p
        for p in paths
        if not tool_leftovers().search(p)
        and _utf8(p)
        and not any(p == x or p.startswith(x + "/") for x in prefixes)
    ]
    return {p: sha256_file(root / p) for p in sorted(kept) if (root / p).is_file()}


def _relative_prefix(root: Path, path: Path) -> str | None:
    try:
        rel = path.resolve().relative_to(root).as_posix()
    except ValueError:
        return None
    return None if rel == "." else rel


def _utf8(path: str) -> bool:
    """A name that is not UTF-8 cannot be written into the baseline (nor imported)."""
    try:
        path.encode()
    except UnicodeEncodeError:
        return False
    return True


def _walk_files(root: Path) -> list[str]:
    found: list[str] = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in skipped_dirs() and not d.endswith(".egg-info"))
        found += [(Path(folder) / name).relative_to(root).as_posix() for name in names]
    return found
