"""Validate a harness as it would be after some file changes, without touching it.

The harness's definition files are copied into a temporary directory (same
relative paths, so breadcrumbs read the same), the changed texts laid over
them, and the copy is loaded and validated. Only when that passes does the
caller write the real files.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from aidlc_review.layout import HarnessLayout


def validate_with_changes(layout: HarnessLayout, changes: dict[str, str]) -> None:
    """Raise ValidationFailed if the harness plus ``changes`` (display path -> text) is invalid."""
    from aidlc_review.build import load_valid

    with tempfile.TemporaryDirectory(prefix="aidlc-review-trial-") as tmp:
        root = Path(tmp)
        (root / layout.display(layout.stages_dir)).mkdir(parents=True)
        for path in layout.input_files():
            target = root / layout.display(path)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
        for display, text in changes.items():
            target = root / display
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8", newline="")
        load_valid(HarnessLayout.at(root))
