"""A unit name that names nothing is refused with the units there are, by every verb: a
misspelt unit is never a fresh review (exit 0) nor a pass spent on nothing."""

from __future__ import annotations

from aidlc_review.cli.main import main
from tests.review.workspace import CLEAN, make_workspace


def test_verify_refuses_a_unit_that_has_neither_a_manifest_nor_a_review(tmp_path, capsys):
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": CLEAN})
    capsys.readouterr()

    assert main(["review", "verify", "--workspace", str(ws), "--unit", "u1-order"]) == 2

    manifest = ws / "aidlc-docs/construction/u1-order/code-generation/source-manifest.json"
    assert capsys.readouterr().err == (
        f"{manifest}: no source manifest for --unit u1-order (did you mean 'u1-orders'?); "
        "units with one: u1-orders\n"
    )


def test_verify_of_a_unit_not_reviewed_yet_says_so_instead_of_fresh(tmp_path, capsys):
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": CLEAN})
    capsys.readouterr()

    assert main(["review", "verify", "--workspace", str(ws), "--unit", "u1-orders"]) == 0

    assert capsys.readouterr().out == (
        "not reviewed yet: no receipt to be stale (`verify --ready` requires a READY review)\n"
    )
    assert main(["review", "verify", "--ready", "--workspace", str(ws), "--unit", "u1-orders"]) == 1
