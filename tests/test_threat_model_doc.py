"""docs/threat-model.md backs each claim with a named test: every name it gives exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "threat-model.md"
CITE = re.compile(r"`(tests/[\w/]+\.py)?(?:::(test_\w+))?`")


def cited() -> list[tuple[str, str | None]]:
    """``(file, test or None)`` for each citation; ``::test_x`` alone names a test of the
    file cited just before it in the same table cell."""
    found: list[tuple[str, str | None]] = []
    for line in DOC.read_text(encoding="utf-8").splitlines():
        current = None
        for match in CITE.finditer(line):
            path, test = match.groups()
            current = path or current
            if current is not None and (path or test):
                found.append((current, test))
    return found


def test_every_test_the_threat_model_names_exists() -> None:
    missing = []
    for path, test in cited():
        source = ROOT / path
        if not source.is_file():
            missing.append(path)
        elif test and not re.search(rf"^def {test}\(", source.read_text(), re.MULTILINE):
            missing.append(f"{path}::{test}")
    assert cited(), "the threat model names no tests"
    assert missing == []


def test_every_attack_row_names_a_test() -> None:
    rows = [
        line
        for line in DOC.read_text(encoding="utf-8").splitlines()
        if line.startswith("| ") and not line.startswith(("| attack", "|---"))
    ]
    assert rows and [row for row in rows if "`tests/" not in row] == []
