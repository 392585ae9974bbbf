"""Upstream's ``matches`` globs: ``**`` spans folders, ``{a,b}`` picks alternatives."""

from __future__ import annotations

import pytest

from aidlc_review.sensors.globs import filter_matching

PATHS = ["a.py", "src/b.py", "src/deep/c.pyi", "src/d.pyc", "README.md", "--help.py"]


@pytest.mark.parametrize(
    "pattern, expected",
    [
        ("**/*.{py,pyi}", ["a.py", "src/b.py", "src/deep/c.pyi", "--help.py"]),
        ("**/*.py", ["a.py", "src/b.py", "--help.py"]),
        ("src/*.py", ["src/b.py"]),
        ("src/**", ["src/b.py", "src/deep/c.pyi", "src/d.pyc"]),
        ("**", PATHS),
        ("*.md", ["README.md"]),
        ("**/{aidlc-docs,intents}/**", []),
    ],
)
def test_matches_globs(pattern: str, expected: list[str]) -> None:
    assert filter_matching(pattern, PATHS) == expected
