"""By exact code: a TODO (FIX002), SIM103 and BLE001 are minor, whatever F, S and B are."""

from __future__ import annotations

from pathlib import Path

from aidlc_review.cli.main import main
from tests.review.workspace import PYPROJECT, findings_doc, git, make_workspace, review_args

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
