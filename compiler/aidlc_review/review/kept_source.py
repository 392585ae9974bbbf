"""What each pass froze, kept where no agent writes, so a later brief can show what changed.

The record keeps only hashes, but the pass-2 brief shows what the repair changed and the
repair brief quotes code around each finding. So every pass keeps the text of its claimed
files under this machine's review state dir (``$XDG_STATE_HOME/aidlc-review/source/``,
beside the seal key, outside every workspace), content-addressed: a blob is named by the
SHA-256 of its bytes and a snapshot by the pass's source fingerprint. Text is kept with
its secrets redacted (the scrub agents' text passes), so no secret is copied out of the
workspace; a blob whose bytes no longer match its name counts as not kept.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from aidlc_review.fsio import canonical_json, sha256_bytes, write_atomic
from aidlc_review.review.freeze import Frozen
from aidlc_review.review.seal import state_dir
from aidlc_review.sensors.redact import scrub

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
    digest = sha256_bytes(data)
    if len(data) > MAX_KEPT_BYTES:
        return KeptText(None, f"larger than {MAX_KEPT_BYTES} bytes", digest)
    if b"\0" in data[:_BINARY_SNIFF]:
        return KeptText(None, "binary", digest)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return KeptText(None, "binary", digest)
    return KeptText(scrub(text)[0], None, digest)


def keep_source(frozen: Frozen, workspace: Path) -> None:
    """Keep the text of the files ``frozen`` hashed (a no-op when this snapshot is kept)."""
    snapshot = _snapshot_path(frozen.fingerprint)
    if snapshot.is_file():
        return
    files: dict[str, dict[str, str | None]] = {}
    for rel, digest in sorted(frozen.files.items()):
        files[rel] = _keep_file(workspace / rel, digest)
    write_atomic(snapshot, canonical_json({"version": 1, "files": files}))


def kept_source(fingerprint: str) -> dict[str, KeptText] | None:
    """The text kept for the pass that froze ``fingerprint``; None when nothing was kept."""
    try:
        data = json.loads(_snapshot_path(fingerprint).read_bytes())
        files = data["files"]
        return {rel: _read_entry(entry) for rel, entry in sorted(files.items())}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _keep_file(path: Path, digest: str) -> dict[str, str | None]:
    entry: dict[str, str | None] = {"sha256": digest, "kept": None, "reason": None}
    try:
        data = path.read_bytes()
    except OSError as exc:
        return {**entry, "reason": f"cannot be read ({exc.strerror})"}
    shown = as_text(data)
    if shown.digest != digest:
        return {**entry, "reason": "changed while it was frozen"}
    if shown.text is None:
        return {**entry, "reason": shown.reason}
    return {**entry, "kept": _put_blob(shown.text.encode())}


def _read_entry(entry: dict[str, str | None]) -> KeptText:
    name, digest = entry.get("kept"), entry.get("sha256")
    if not name:
        return KeptText(None, entry.get("reason") or "not kept", digest)
    try:
        data = _blob_path(name).read_bytes()
    except OSError:
        return KeptText(None, "not kept", digest)
    if sha256_bytes(data) != name:
        return KeptText(None, "not kept (its copy was altered)", digest)
    return KeptText(data.decode("utf-8", "replace"), None, digest)


def _put_blob(data: bytes) -> str:
    name = sha256_bytes(data)
    path = _blob_path(name)
    if not path.is_file():
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
