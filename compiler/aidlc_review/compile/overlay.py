"""A harness as it would be after some file changes, without touching it.

The harness's definition files are copied into a temporary directory (same
relative paths, so breadcrumbs read the same), the changed texts laid over
them, and the copy is loaded from there. Only when that passes does the caller
write the real files.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from aidlc_review.harness.layout import HarnessLayout


@contextmanager
def overlaid(layout: HarnessLayout, changes: dict[str, str]) -> Iterator[HarnessLayout]:
    """A scratch copy of the harness's definitions with ``changes`` (display -> text) laid
    over them (a ``None``-free mapping); removed again on exit."""
    with tempfile.TemporaryDirectory(prefix="aidlc-review-trial-") as tmp:
        root = Path(tmp) / layout.root.name
        (root / layout.display(layout.stages_dir)).mkdir(parents=True)
        for path in layout.input_files():
            target = root / layout.display(path)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
        for display, text in changes.items():
            target = root / display
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8", newline="")
        yield HarnessLayout.at(root)


def validate_with_changes(layout: HarnessLayout, changes: dict[str, str]) -> None:
    """Raise ValidationFailed if the harness plus ``changes`` is invalid."""
    from aidlc_review.compile.build import load_valid

    with overlaid(layout, changes) as trial:
        load_valid(trial)
