"""Compare rendered outputs with the files on disk and show the difference."""

from __future__ import annotations

import difflib
from pathlib import Path


def report_drift(out: Path, outputs: dict[str, str]) -> str:
    """A unified diff (on-disk -> compiled) for every output that differs; '' when none."""
    chunks = []
    for name, text in outputs.items():
        path = out / name
        try:
            current = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            current = ""
        if current == text:
            continue
        diff = difflib.unified_diff(
            current.splitlines(keepends=True),
            text.splitlines(keepends=True),
            fromfile=f"{path} (on disk)",
            tofile=f"{path} (compiled)",
        )
        chunks.append("".join(diff) or f"--- {path}\n+++ {path}\n(missing)\n")
    return "".join(chunks)
