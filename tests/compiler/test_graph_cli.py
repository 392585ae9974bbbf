"""``aidlc-review graph``: producers, consumers, topo, cycles, scope."""

from __future__ import annotations

import json

from aidlc_review.cli.main import main
from tests.compiler.harness_factory import edit, write_harness


def test_producers_and_consumers(tmp_path, capsys):
    root = write_harness(tmp_path / "h")
    assert main(["graph", "producers", "unit-of-work", "--harness", str(root)]) == 0
    assert main(["graph", "consumers", "unit-of-work", "--harness", str(root)]) == 0
    assert capsys.readouterr().out == "plan-units\nbuild\n"


def test_topo_lists_numbers_in_order(tmp_path, capsys):
    root = write_harness(tmp_path / "h")
    assert main(["graph", "topo", "--harness", str(root), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == [
        {"number": "0.1", "slug": "setup"},
        {"number": "2.1", "slug": "plan-units"},
        {"number": "3.1", "slug": "build"},
        {"number": "3.2", "slug": "check"},
    ]


def test_scope_lists_executing_stages_and_suggests_near_names(tmp_path, capsys):
    root = write_harness(tmp_path / "h")
    assert main(["graph", "scope", "poc", "--harness", str(root)]) == 0
    assert capsys.readouterr().out == "0.1\tsetup\n2.1\tplan-units\n3.1\tbuild\n"
    assert main(["graph", "scope", "pco", "--harness", str(root)]) == 2
    assert capsys.readouterr().err == "unknown scope 'pco' (did you mean 'poc'?)\n"


def test_cycles_are_printed_as_arrows_and_exit_1(tmp_path, capsys):
    root = write_harness(tmp_path / "h")
    assert main(["graph", "cycles", "--harness", str(root)]) == 0
    assert capsys.readouterr().out == ""
    edit(root, "stages/construction/build.md", "  - plan-units", "  - check")
    assert main(["graph", "cycles", "--harness", str(root)]) == 1
    assert capsys.readouterr().out == "build --> check --> build\n"


def test_unknown_query_is_a_usage_error(tmp_path, capsys):
    assert main(["graph", "sideways"]) == 2
    assert "invalid choice: 'sideways'" in capsys.readouterr().err
