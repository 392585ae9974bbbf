"""A gate on unchanged bytes answers from what this machine proved: the proof memo.

Running the sensors again (``review.record.recompute``) is most of what ``review verify
--ready`` costs, and on bytes this machine has already proven it can only give the same
answer. So the outcome of a full recomputation is kept, keyed by everything it read:

- the bytes of every file git can name in the workspace (tracked, or untracked and not
  ignored by the tree's ``.gitignore`` files): the claimed source, the tests, the tools'
  configuration, the record itself (findings document, receipt, baseline);
- the compiled files of the harness the sensors come from (its review plan, ledger and
  stage graph), wherever they lie and whether or not git can see them;
- the base commit, the unit's change against it, ``thorough``, the interpreter, ``PATH``
  and this package's version.

A memo is sealed like every cached sensor result (``sensors.cache``: HMAC under this
machine's review key). One whose seal does not verify is a miss: the sensors run again.
A byte changed anywhere git can see, another base, another plan: another key, a miss.
Nothing an agent can write turns a memo into READY for bytes this machine did not prove:
the key binds the bytes, and only this machine's key seals a memo.

What a memo does not see: files the tree's ``.gitignore`` hides, what a symlink points
at outside the workspace (its target's name is bound, not its bytes), and programs
installed outside the workspace; ``cache = false`` does not turn the memo off. A memo
replays the proof of the very same tracked bytes; a tool upgraded since then is met at
the next review or the next changed byte. Outside git there is no memo (nothing lists the
workspace's files).
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aidlc_review import __version__

if TYPE_CHECKING:  # the models (pydantic) only where a memo is read or written
    from aidlc_review.review.findings.change_filter import Change
    from aidlc_review.review.inputs.paths import RecordPaths
    from aidlc_review.review.record.recompute import Recomputed
    from aidlc_review.review.source.git_drift import Listing

LABEL = "proof-memo/1"
# the compiled files the sensors come from, as ``harness.review_plan`` names them (a test
# holds the two equal): named here so a memo's key does not import the plan's models
PLAN_FILES = (
    "tools/data/review-plan.json",
    "tools/data/plugin-aidlc-review.json",
    "tools/data/stage-graph.json",
)


def memo_key(
    paths: RecordPaths,
    base: str | None,
    change: Change | None,
    harness: Path | None,
    thorough: bool,
) -> str | None:
    """The memo's key, or None when the workspace's files cannot be listed (outside git)."""
    files = seen_files(paths.workspace)
    if files is None:
        return None
    plan = plan_files(paths.workspace, harness)
    # the record's own files, wherever ``--record`` put them
    record = [(str(p), _hashed(p.parent, [p.name])[0][1]) for p in _record_files(paths)]
    parts: list[Any] = [
        *running_parts(LABEL, paths.unit),
        base,
        _change_parts(change),
        thorough,
        files,
        plan,
        record,
    ]
    return LABEL + ":" + digest_of(parts)


def recall(key: str) -> Recomputed | None:
    """The recomputation this machine sealed under ``key``; None: none, or not verified."""
    from aidlc_review.review.record.models import Finding
    from aidlc_review.review.record.recompute import Recomputed
    from aidlc_review.sensors.cache import ResultCache, default_cache_dir

    cache = ResultCache(default_cache_dir())
    try:
        value = cache.get(key)
    finally:
        cache.close()
    if not isinstance(value, dict):
        return None
    try:
        return Recomputed(
            findings=[Finding.model_validate(f) for f in value["findings"]],
            understated=list(value["understated"]),
            not_run=list(value["not_run"]),
            deferred=list(value["deferred"]),
        )
    except (KeyError, TypeError, ValueError):
        return None  # not a memo this version wrote: recompute


def remember(key: str, again: Recomputed) -> None:
    """Keep a full recomputation's outcome under ``key`` (sealed by the cache)."""
    from aidlc_review.sensors.cache import ResultCache, default_cache_dir

    value = {
        "findings": [f.model_dump(mode="json") for f in again.findings],
        "understated": again.understated,
        "not_run": again.not_run,
        "deferred": again.deferred,
    }
    cache = ResultCache(default_cache_dir())
    try:
        cache.put_many({key: value})
    finally:
        cache.close()


def running_parts(label: str, unit: str | None) -> list[Any]:
    """What a sealed answer is valid for besides the bytes: its kind, this plugin's
    version, the interpreter, the tools' PATH, the unit."""
    return [label, __version__, sys.executable, os.environ.get("PATH", ""), unit]


def seen_files(
    workspace: Path, leave_out: tuple[str, ...] = (), listing: Listing | None = None
) -> list[tuple[str, str]] | None:
    """Every file git can name in the workspace with the digest of its bytes, except those
    under the folders ``leave_out`` (workspace-relative, ending in ``/``); None outside git.
    ``listing``: git's listing taken by the caller with nothing written since."""
    from aidlc_review.review.source.git_drift import list_files

    if listing is None:
        listing = list_files(workspace)
    if listing is None:
        return None
    names = sorted(n for n in listing.every if not n.startswith(leave_out))
    return _hashed(workspace, names)


def _hashed(root: Path, names: list[str]) -> list[tuple[str, str]]:
    """Each file's name with the digest of its bytes (a symlink: of its target's name)."""
    out: list[tuple[str, str]] = []
    for name in names:
        path = root / name
        try:
            data = os.readlink(path).encode() if path.is_symlink() else path.read_bytes()
        except FileNotFoundError:
            data = b"\0missing"  # a name git lists that is gone now: part of the state too
        except IsADirectoryError:
            data = b"\0directory"
        out.append((name, hashlib.sha256(data).hexdigest()))
    return out


def _record_files(paths: RecordPaths) -> list[Path]:
    return [p.resolve() for p in (paths.findings, paths.receipt, paths.baseline)]


def plan_files(workspace: Path, harness: Path | None) -> list[tuple[str, str]]:
    """The harness's compiled files the sensors come from (``harness.review_plan``), even
    when the tree's ``.gitignore`` hides them from git."""
    from aidlc_review.harness.layout import HarnessLayout
    from aidlc_review.review.inputs.intent import upstream_harness

    # as ``UnitContext.load`` finds it: given, the workspace's installed one, or built in
    root = HarnessLayout.at(harness or upstream_harness(workspace)).root.resolve()
    return [("harness", str(root)), *_hashed(root, list(PLAN_FILES))]


def _change_parts(change: Change | None) -> list[Any] | None:
    if change is None:
        return None
    at_base = sorted(change.at_base) if change.at_base is not None else None
    lines = sorted((name, sorted(numbers)) for name, numbers in change.lines.items())
    return [change.base, str(change.mode), lines, at_base]


def digest_of(parts: list[Any]) -> str:
    import json

    text = json.dumps(parts, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()
