"""What each pass froze, kept where no agent writes, so a later brief can show what changed.

The record keeps only hashes, but the pass-2 brief shows what the repair changed and the
repair brief quotes code around each finding. So every pass keeps the text of its claimed
files under this machine's review state dir (``$XDG_STATE_HOME/aidlc-review/source/``,
beside the seal key, outside every workspace), content-addressed: a blob is named by the
SHA-256 of its bytes and a snapshot by the pass's source fingerprint. Text is kept with
its secrets redacted (the scrub agents' text passes), so no secret is copied out of the
workspace; a blob whose bytes no longer match its name counts as not kept.

The store is a cache, bounded (``kept_prune``): keeping or reading an entry refreshes its
mtime, and a pass that keeps source prunes, at most once a day, what was not used for 30
days and then the oldest entries past 512 MiB. Keeping is best effort: an entry that is
gone, or a store that cannot be written, only costs the next brief its diff.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass
from pathlib import Path

from aidlc_review.fsio import canonical_json, sha256_bytes, write_atomic
from aidlc_review.review.record.seal import state_dir
from aidlc_review.review.source.freeze import Frozen
from aidlc_review.review.source.kept_prune import prune_now_and_then, touch
from aidlc_review.sensors.redact import scrub_many

MAX_KEPT_BYTES = 1 << 20
_BINARY_SNIFF = 8192


@dataclass(frozen=True)
class KeptText:
    """One file as a diff or a quote sees it: its text, or why there is none."""

    text: str | None
    reason: str | None = None  # binary, too large, not kept
    digest: str | None = None  # SHA-256 of the file's own bytes, when known


def store_dir() -> Path:
    return state_dir() / "source"


def as_text(data: bytes) -> KeptText:
    """File bytes as redacted text, or the reason they cannot be shown as text."""
    [shown] = as_texts([data])
    return shown


def as_texts(datas: list[bytes]) -> list[KeptText]:
    """``as_text`` for many files at once: their redaction shares one child process."""
    decoded = [_decoded(data) for data in datas]
    texts = [text for text in decoded if isinstance(text, str)]
    scrubbed = iter(text for text, _ in scrub_many(texts))
    return [
        KeptText(next(scrubbed), None, sha256_bytes(data))
        if isinstance(text, str)
        else KeptText(None, text.reason, sha256_bytes(data))
        for data, text in zip(datas, decoded, strict=True)
    ]


def _decoded(data: bytes) -> str | KeptText:
    if len(data) > MAX_KEPT_BYTES:
        return KeptText(None, f"larger than {MAX_KEPT_BYTES} bytes")
    if b"\0" in data[:_BINARY_SNIFF]:
        return KeptText(None, "binary")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return KeptText(None, "binary")


def keep_source(frozen: Frozen, workspace: Path) -> None:
    """Keep the text of the files ``frozen`` hashed (only refreshed when this snapshot is kept).

    Never fails the pass: a store that cannot be written leaves the next brief without a diff.
    """
    snapshot = _snapshot_path(frozen.fingerprint)
    try:
        if snapshot.is_file():
            _refresh(snapshot)
        else:
            _keep_snapshot(snapshot, frozen, workspace)
        prune_now_and_then(store_dir())
    except OSError:
        return


def _keep_snapshot(snapshot: Path, frozen: Frozen, workspace: Path) -> None:
    names = sorted(frozen.files)
    read: dict[str, bytes] = {}
    files: dict[str, dict[str, str | None]] = {}
    for rel in names:
        files[rel] = {"sha256": frozen.files[rel], "kept": None, "reason": None}
        try:
            read[rel] = (workspace / rel).read_bytes()
        except OSError as exc:
            files[rel]["reason"] = f"cannot be read ({exc.strerror})"
    for rel, shown in zip(read, as_texts(list(read.values())), strict=True):
        if shown.digest != frozen.files[rel]:
            files[rel]["reason"] = "changed while it was frozen"
        elif shown.text is None:
            files[rel]["reason"] = shown.reason
        else:
            files[rel]["kept"] = _put_blob(shown.text.encode())
    write_atomic(snapshot, canonical_json({"version": 1, "files": files}))


def _refresh(snapshot: Path) -> None:
    """Mark a snapshot kept again, and its blobs, as used now."""
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError, AttributeError):
        for entry in json.loads(snapshot.read_bytes())["files"].values():
            if entry.get("kept"):
                touch(_blob_path(entry["kept"]))
    touch(snapshot)


def kept_source(fingerprint: str) -> dict[str, KeptText] | None:
    """The text kept for the pass that froze ``fingerprint``; None when nothing was kept."""
    try:
        path = _snapshot_path(fingerprint)
        data = json.loads(path.read_bytes())
        files = data["files"]
        kept = {rel: _read_entry(entry) for rel, entry in sorted(files.items())}
        touch(path)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return kept


def _read_entry(entry: dict[str, str | None]) -> KeptText:
    name, digest = entry.get("kept"), entry.get("sha256")
    if not name:
        return KeptText(None, entry.get("reason") or "not kept", digest)
    try:
        path = _blob_path(name)
        data = path.read_bytes()
    except OSError:
        return KeptText(None, "no longer kept", digest)
    if sha256_bytes(data) != name:
        return KeptText(None, "not kept (its copy was altered)", digest)
    touch(path)
    return KeptText(data.decode("utf-8", "replace"), None, digest)


def _put_blob(data: bytes) -> str:
    name = sha256_bytes(data)
    path = _blob_path(name)
    if path.is_file():
        touch(path)
    else:
        write_atomic(path, data)
    return name


def _blob_path(name: str) -> Path:
    hexdigest = name.removeprefix("sha256:")
    if len(hexdigest) != 64 or not all(c in "0123456789abcdef" for c in hexdigest):
        raise OSError(f"not a blob name: {name!r}")
    return store_dir() / "blobs" / hexdigest[:2] / hexdigest


def _snapshot_path(fingerprint: str) -> Path:
    hexdigest = fingerprint.removeprefix("sha256:")
    if len(hexdigest) != 64 or not all(c in "0123456789abcdef" for c in hexdigest):
        raise ValueError(f"not a source fingerprint: {fingerprint!r}")
    return store_dir() / "snapshots" / f"{hexdigest}.json"
