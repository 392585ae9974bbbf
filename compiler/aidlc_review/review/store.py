"""Reading and writing the stage's artifacts, atomically and validated both ways."""

from __future__ import annotations

from pathlib import Path

from aidlc_review.fsio import dump_json, write_atomic
from aidlc_review.review.git_drift import committed_as_is
from aidlc_review.review.models import FindingsDocument, Receipt
from aidlc_review.review.paths import RecordPaths
from aidlc_review.review.report import render_report
from aidlc_review.review.seal import check_seal, is_sealed, seal, settle, unseal, was_sealed
from aidlc_review.typed_load import parse_json


def load_document(path: Path) -> FindingsDocument | None:
    """The findings document on disk, or None when there is none yet."""
    if not path.is_file():
        return None
    return parse_json(FindingsDocument, path.read_bytes(), str(path))


def load_unit_document(paths: RecordPaths) -> FindingsDocument | None:
    """The unit's findings document, refused (``ForgedState``) when an agent rewrote it.

    The document holds the verdict and the waivers, so it decides approval: it is
    sealed like the receipt. Once this machine sealed it (a marker beside the key, out of
    the agents' reach) or reviewed the unit (a baseline exists), its seal is required,
    unless the document is exactly what HEAD has committed (a worktree made again from the
    record's commit); a document reviewed elsewhere and committed has none here.
    """
    if not paths.findings.is_file():
        return None
    raw = paths.findings.read_bytes()  # once: the bytes parsed are the bytes whose seal counts
    doc = parse_json(FindingsDocument, raw, str(paths.findings))
    sealed = is_sealed(paths, paths.findings, raw)  # ForgedState when it does not match
    required = paths.baseline.is_file() or was_sealed(paths, paths.findings)
    if required and not sealed and not committed_as_is(paths.workspace, paths.findings, raw):
        check_seal(paths, paths.findings, raw)  # refuses: the seal is gone
    return doc


def document_json(doc: FindingsDocument) -> str:
    return dump_json(doc.model_dump(mode="json", by_alias=True, exclude_none=False))


def save_document(paths: RecordPaths, doc: FindingsDocument) -> None:
    """Render both artifacts first, then write each atomically (findings first)."""
    findings, report = document_json(doc), render_report(doc)
    previous = paths.findings.read_bytes() if paths.findings.is_file() else None
    seal(paths, paths.findings, findings.encode(), previous)  # both accepted until settled
    write_atomic(paths.findings, findings)
    settle(paths, paths.findings, findings.encode())
    write_atomic(paths.report, report)
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
