"""Reading and writing the stage's artifacts, atomically and validated both ways."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from aidlc_review.fsio import dump_json, sha256_bytes, write_atomic
from aidlc_review.review.inputs.paths import RecordPaths
from aidlc_review.review.record.models import FindingsDocument, Receipt
from aidlc_review.review.record.seal import is_sealed, seal, settle, unseal
from aidlc_review.typed_load import parse_json

SET_ASIDE = "set-aside"


def load_document(path: Path) -> FindingsDocument | None:
    """The findings document on disk, or None when there is none yet."""
    if not path.is_file():
        return None
    return parse_json(FindingsDocument, path.read_bytes(), str(path))


@dataclass(frozen=True)
class Recorded:
    """The unit's findings document and where it came from: ``sealed_here`` when this
    machine's engine wrote it (its seal matches); otherwise it was written elsewhere (a
    teammate, CI, a worktree merged in) and proves nothing by itself."""

    doc: FindingsDocument
    sealed_here: bool
    raw: bytes


def read_recorded(paths: RecordPaths) -> Recorded | None:
    """The unit's findings document with its provenance, or None when there is none.

    ``ForgedState`` when its seal does not match, or when this machine sealed it once and
    the seal is gone (deleting a seal never turns a document into one "from elsewhere").
    A document this machine never sealed is returned with ``sealed_here=False``: there
    is no first-pass and no "committed as is" exemption; callers prove it from the bytes
    (``review.record.proof``) or set it aside (``set_aside_foreign``), never load it as history.
    """
    if not paths.findings.is_file():
        return None
    raw = paths.findings.read_bytes()  # once: the bytes parsed are the bytes whose seal counts
    doc = parse_json(FindingsDocument, raw, str(paths.findings))
    sealed = is_sealed(paths, paths.findings, raw)  # ForgedState when sealed here once
    return Recorded(doc, sealed, raw)


def load_unit_document(paths: RecordPaths) -> FindingsDocument | None:
    """The unit's findings document as history this machine can build on: only one its
    own engine sealed. A document written elsewhere is None here (see ``read_recorded``)."""
    found = read_recorded(paths)
    return found.doc if found is not None and found.sealed_here else None


def set_aside_foreign(paths: RecordPaths) -> Path | None:
    """Move a findings document this machine never sealed out of the way (into the unit's
    engine dir, named by its digest) so a new review starts its own history and nothing
    is lost; returns where it went, or None when there was nothing to set aside."""
    found = read_recorded(paths)
    if found is None or found.sealed_here:
        return None
    digest = sha256_bytes(found.raw).removeprefix("sha256:")[:16]
    target = paths.engine / SET_ASIDE / f"code-review-findings.{digest}.json"
    write_atomic(target, found.raw)
    paths.findings.unlink()
    if paths.baseline.is_file():  # the other machine's stage entry, not this one's
        baseline = paths.baseline.read_bytes()
        if not is_sealed(paths, paths.baseline, baseline):
            write_atomic(target.with_name(f"baseline.{digest}.json"), baseline)
            paths.baseline.unlink()
    return target


def document_json(doc: FindingsDocument) -> str:
    return dump_json(doc.model_dump(mode="json", by_alias=True, exclude_none=False))


def save_document(paths: RecordPaths, doc: FindingsDocument, report: bool = True) -> None:
    """Render both artifacts first, then write each atomically (findings first).
    ``report=False`` keeps code-review.md as the pass wrote it: an approval is a decision
    about the reviewed artifact, and upstream 2.6 binds its reviewer receipt to that
    artifact's bytes (a later write makes the receipt stale)."""
    from aidlc_review.review.report.markdown import render_report  # jinja2: only on a write

    findings, shown = document_json(doc), render_report(doc) if report else None
    previous = paths.findings.read_bytes() if paths.findings.is_file() else None
    seal(paths, paths.findings, findings.encode(), previous)  # both accepted until settled
    write_atomic(paths.findings, findings)
    settle(paths, paths.findings, findings.encode())
    if shown is not None:
        write_atomic(paths.report, shown)
    if doc.receipt is None:
        paths.receipt.unlink(missing_ok=True)
        unseal(paths, paths.receipt)
    else:
        text = receipt_json(doc.receipt)
        seal(paths, paths.receipt, text.encode())  # sealed first: a kill between is a refusal
        write_atomic(paths.receipt, text)


def receipt_json(receipt: Receipt) -> str:
    return dump_json(receipt.model_dump(mode="json", by_alias=True))


def load_receipt(paths: RecordPaths) -> Receipt | None:
    """The unit's receipt if this machine's engine sealed it; ``ForgedState`` if its seal
    does not match (an agent rewrote it)."""
    if not paths.receipt.is_file():
        return None
    raw = paths.receipt.read_bytes()
    hint = "delete it and run `review run` again"
    receipt = parse_json(Receipt, raw, str(paths.receipt), what="receipt", hint=hint)
    # a receipt this machine never sealed is no receipt here (freshness says why)
    return receipt if is_sealed(paths, paths.receipt, raw) else None
