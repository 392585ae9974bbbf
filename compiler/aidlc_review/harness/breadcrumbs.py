"""Breadcrumbs for definition files: ``path:line: key.path: message``.

The wording of every validation error lives in ``aidlc_review.typed_load`` (one place for
every file the tool reads); definitions use it with bare key paths (no ``$``).
"""

from __future__ import annotations

from aidlc_review.typed_load import (
    KeyChoices,
    diagnostics_from,
    did_you_mean,
    key_path,
    show,
)

__all__ = ["KeyChoices", "diagnostics_from", "did_you_mean", "key_path", "show"]
