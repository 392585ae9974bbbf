"""A gate on bytes this machine already proved answers without building the record's models.

``review verify`` (``--ready`` in every gate) refuses stale bytes and a tampered record
and recomputes the verdict (``review.record.proof``). All of that is a pure function of
what it reads, so its answer (the reasons it exits 1 for, what it could not check) is
kept, sealed like every cached sensor result (HMAC under this machine's review key,
``sensors.cache``), under a key that binds everything the full check reads:

- the proof memo's key parts (``review.record.proof_memo``): every byte git can name in
  the workspace, the harness's compiled plan files, the interpreter, ``PATH``, this
  package's version and the unit;
- ``--ready`` (the sensors that run the tests), the harness given, and **today's date**
  (a waiver in force today may have expired tomorrow);
- the record's files wherever ``--record`` and ``--manifest`` put them (findings, receipt,
  report, baseline, source manifest), the seals beside them and whether this machine
  ever sealed them (the markers in the state home), none of which git need see;
- the files the findings cite (a reviewer finding's evidence is checked against them),
  read through the same path resolution, ignored by git or not.

What the claims name on disk is checked at every hit: the claimed files and every
entry under a claimed directory (ignored by git or not, as ``claimed_files`` walks them),
with the digest of each file's bytes, must be what they were when the answer was kept.

A hit says "this machine ran the full check, stale bytes and tampering included, on
exactly these bytes today"; a miss (any byte changed, a memo forged or sealed under
another key, another day) runs everything as before. Only a record sealed here is
remembered: one from elsewhere is judged against a base this machine resolves anew.
"""

from __future__ import annotations

import hashlib
import json
import os
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aidlc_review.review.record.proof_memo import (
    digest_of,
    plan_files,
    running_parts,
    seen_files,
)

if TYPE_CHECKING:
    from aidlc_review.review.inputs.paths import RecordPaths

LABEL = "verify-answer/1"
SKIPPED = frozenset({".git", "__pycache__"})  # as ``source_manifest.SKIPPED_DIRS``


def answer_key(
    paths: RecordPaths, ready: bool, harness: Path | None, today: date | None = None
) -> str | None:
    """The answer's key; None outside git (nothing lists the workspace's files).
    ``InvalidInput`` when the state key lies inside the workspace, as the full check says."""
    from aidlc_review.review.record.seal import refuse_key_inside

    refuse_key_inside(paths.workspace)  # a key the agents can read seals no answer
    files = seen_files(paths.workspace)
    if files is None:
        return None
    record = _record_parts(paths)
    parts: list[Any] = [
        *running_parts(LABEL, paths.unit),
        ready,
        str(harness) if harness is not None else None,
        (today or date.today()).isoformat(),
        str(paths.record),
        str(paths.manifest),
        files,
        plan_files(paths.workspace, harness),
        record,
        _cited(paths),
    ]
    return LABEL + ":" + digest_of(parts)


def recall_answer(paths: RecordPaths, key: str) -> tuple[list[str], list[str]] | None:
    """``(reasons, unproven)`` this machine sealed under ``key`` when the claims still name
    the same bytes; None otherwise (a miss: the full check runs)."""
    from aidlc_review.sensors.cache import ResultCache, default_cache_dir

    cache = ResultCache(default_cache_dir())
    try:
        value = cache.get(key)
    finally:
        cache.close()
    try:
        reasons = [str(r) for r in value["reasons"]]
        unproven = [str(u) for u in value["unproven"]]
        claims = value["claims"]
        tree = claimed_tree(paths.workspace, list(claims["dirs"]), list(claims["files"]))
        if tree != value["tree"]:
            return None
    except (KeyError, TypeError, ValueError):
        return None  # none, or not one this version wrote
    return reasons, unproven


def claims_now(paths: RecordPaths) -> tuple[list[str], list[str]] | None:
    """The manifest's claimed directories and files; None when its claims cannot be read
    (then nothing is remembered: such a record is checked in full every time)."""
    from aidlc_review.errors import InvalidInput
    from aidlc_review.review.inputs.source_manifest import read_source_manifest

    try:
        manifest = read_source_manifest(paths.manifest, paths.workspace)
    except InvalidInput:
        return None
    dirs = sorted(c.relative for c in manifest.claims if c.is_dir)
    return dirs, sorted(c.relative for c in manifest.claims if not c.is_dir)


def remember_answer(
    key: str, answer: tuple[list[str], list[str]], claims: tuple[list[str], list[str]], tree: Any
) -> None:
    """Keep a full check's answer (sealed by the cache) with what the claims named when
    the check began (``tree``: ``claimed_tree`` then)."""
    from aidlc_review.sensors.cache import ResultCache, default_cache_dir

    reasons, unproven = answer
    value = {
        "reasons": reasons,
        "unproven": unproven,
        "claims": {"dirs": claims[0], "files": claims[1]},
        "tree": tree,
    }
    cache = ResultCache(default_cache_dir())
    try:
        cache.put_many({key: value})
    finally:
        cache.close()


def claimed_tree(workspace: Path, dirs: list[str], names: list[str]) -> list[list[str]]:
    """Each claimed file and each entry under a claimed directory (symlinked folders
    followed, as the claims are): its name, where it resolves and its bytes' digest."""
    root = workspace.resolve()
    entries = list(names)
    for claimed in dirs:
        for folder, subdirs, files in os.walk(root / claimed, followlinks=True):
            subdirs[:] = sorted(d for d in subdirs if d not in SKIPPED)
            here = Path(folder)
            entries += [(here / n).relative_to(root).as_posix() for n in sorted(files)]
        if not (root / claimed).is_dir():
            entries.append(claimed)
    return [[rel, *_state(root / rel)] for rel in sorted(set(entries))]


def _state(path: Path) -> list[str]:
    """Where ``path`` resolves and the digest of its bytes (or why there are none)."""
    where = os.path.realpath(path)
    try:
        data = Path(where).read_bytes()
    except FileNotFoundError:
        data = b"\0missing"
    except OSError:
        data = b"\0unreadable"
    return [where, hashlib.sha256(data).hexdigest()]


def _record_parts(paths: RecordPaths) -> list[Any]:
    """The record's files and their seals, wherever they lie, and whether this machine
    ever sealed each (its marker in the state home)."""
    from aidlc_review.review.record.seal import was_sealed

    targets = [paths.findings, paths.receipt, paths.report, paths.baseline, paths.manifest]
    seals = paths.engine / "seals"
    out: list[Any] = []
    for target in targets:
        seal = seals / f"{target.name}.hmac"
        out.append([str(target), *_state(target), *_state(seal), was_sealed(paths, target)])
    return out


def _cited(paths: RecordPaths) -> list[list[str]]:
    """The files the findings document cites (every ``path`` in it), as the evidence
    check reads them: resolved inside the workspace."""
    try:
        document = json.loads(paths.findings.read_bytes())
        cited = sorted({p for p in _paths_in(document) if p})
    except (OSError, ValueError, RecursionError):
        return []  # not JSON or nested too deep: the full check refuses it, naming why
    root = paths.workspace.resolve()
    return [[p, *_state(root / p)] for p in cited]


def _paths_in(value: Any) -> list[str]:
    if isinstance(value, dict):
        found = [v for k, v in value.items() if k == "path" and isinstance(v, str)]
        return found + [p for v in value.values() for p in _paths_in(v)]
    if isinstance(value, list):
        return [p for v in value for p in _paths_in(v)]
    return []
