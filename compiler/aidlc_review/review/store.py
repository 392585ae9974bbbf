"""Reading and writing the stage's artifacts, atomically and validated both ways."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError

from aidlc_review.errors import InvalidInput
from aidlc_review.fsio import dump_json, write_atomic
from aidlc_review.review.models import FindingsDocument, Receipt
from aidlc_review.review.paths import RecordPaths
from aidlc_review.review.report import render_report
from aidlc_review.review.seal import check_seal, is_sealed, seal, settle, unseal


def load_document(path: Path) -> FindingsDocument | None:
    """The findings document on disk, or None when there is none yet."""
    if not path.is_file():
        return None
    try:
        return FindingsDocument.model_validate_json(path.read_bytes())
    except ValidationError as exc:
        raise InvalidInput(f"{path}: {_first_error(exc)}") from None


def load_unit_document(paths: RecordPaths) -> FindingsDocument | None:
    """The unit's findings document, refused (``ForgedState``) when an agent rewrote it.

    The document holds the verdict and the waivers, so it decides approval: it is
    sealed like the receipt. Once this machine reviewed the unit (a baseline exists)
    its seal is required; a document reviewed elsewhere and committed has none here.
    """
    doc = load_document(paths.findings)
    if doc is not None:
        raw = paths.findings.read_bytes()
        if paths.baseline.is_file():
            check_seal(paths, paths.findings, raw)
        else:
            is_sealed(paths, paths.findings, raw)
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
    try:
        receipt = Receipt.model_validate(json.loads(raw))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        what = f"not JSON: {exc}"
    except ValidationError as exc:
        what = _first_error(exc)
    else:
        # a receipt this machine never sealed is no receipt here (freshness says why)
        return receipt if is_sealed(paths, paths.receipt, raw) else None
    raise InvalidInput(
        f"{paths.receipt}: not a valid receipt: {what}; delete it and run `review run` again"
    )


def _first_error(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error["loc"])
    return f"{where}: {error['msg']}"
