"""A severity key names a rule family (letters, then digits), never a longer code's prefix."""

from __future__ import annotations

from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from aidlc_review.sensors.ruff_check import code_matches
from tests.review.workspace import PYPROJECT, findings_doc, git, make_workspace, review_args


@pytest.mark.parametrize(
    ("code", "key", "matches"),
    [
        ("F401", "F", True),
        ("FIX002", "F", False),
        ("FURB101", "F", False),
        ("FBT001", "F", False),
        ("S602", "S", True),
        ("SIM103", "S", False),
        ("SLF001", "S", False),
        ("B006", "B", True),
        ("BLE001", "B", False),
        ("E902", "E9", True),
        ("E501", "E9", False),
        ("S602", "S60", True),
        ("S105", "S60", False),
    ],
)
def test_a_key_matches_its_own_family_only(code: str, key: str, matches: bool) -> None:
    assert code_matches(code, key) is matches


NOISY = '''"""Flags."""


def is_set(value: int) -> bool:  # TODO: check the range
    if value > 0:
        return True
    return False


def read() -> None:
    try:
        print("x")
    except Exception:
        print("failed")
'''


def test_a_todo_a_simplification_and_a_broad_except_do_not_block(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", {"src/flags.py": NOISY})
    config = PYPROJECT.replace('select = ["E", "F", "W"]', 'select = ["F", "FIX", "SIM", "BLE"]')
    (ws / "pyproject.toml").write_text(config)
    identity = ("-c", "user.name=t", "-c", "user.email=t@example.invalid")
    git(ws, *identity, "commit", "-qam", "lint config")  # the base holds the config
    assert main(review_args(ws)) == 0
    linted = {
        (f["rule"], f["severity"])
        for f in findings_doc(ws)["passes"][-1]["findings"]
        if f["check"] == "linter"
    }
    assert {("FIX002", "minor"), ("SIM103", "minor"), ("BLE001", "minor")} <= linted
