"""What no tool judged is said: a claimed file in a language no configured tool takes is
named at the gate, in the report and in the built-in reviewer's summary, never read as clean;
the built-in reviewer's READY says it is a checks-only verdict."""

from __future__ import annotations

import json
from pathlib import Path

from aidlc_review.cli.main import main
from tests.review.workspace import CLEAN, UNIT, findings_doc, make_workspace, report_text

GO = "package orders\n\nfunc Total(prices []int) int {\n\treturn 0\n}\n"


def reviewed(tmp_path: Path) -> Path:
    ws = make_workspace(
        tmp_path / "ws",
        {
            "src/orders/calc.py": CLEAN,
            "svc/total.go": GO,
            "svc/total_test.go": GO,
            "README.md": "x\n",
        },
    )
    assert main(["review", "run", "--workspace", str(ws), "--unit", UNIT]) == 0
    return ws


def test_go_files_no_tool_takes_are_named_in_the_report_and_the_summary(tmp_path: Path):
    ws = reviewed(tmp_path)
    [row] = [c for c in findings_doc(ws)["checks"] if c["name"] == "unjudged-source"]
    assert row["status"] == "skipped"
    assert "ran for 2 Go file(s) (`svc/total.go`, `svc/total_test.go`)" in row["reason"]
    assert "no coverage, formatter, linter, security or type-check" in row["reason"]
    assert "README.md" not in row["reason"]  # not source: nothing to judge it with
    assert "unjudged-source" in report_text(ws)
    summary = findings_doc(ws)["passes"][-1]["reviewer"]["summary"]
    assert summary.startswith("Built-in review (no model): a checks-only verdict")
    assert "Not checked: no coverage" in summary


def test_the_gate_shows_what_nothing_checked_to_the_person_approving(tmp_path: Path, capsys):
    ws = reviewed(tmp_path)
    capsys.readouterr()
    gate = ["review", "gate", "--workspace", str(ws), "--unit", UNIT, "--approve"]
    assert main([*gate, "--json"]) == 0
    said = json.loads(capsys.readouterr().out)
    assert "2 Go file(s)" in said["unjudged"]


def test_a_unit_every_tool_takes_has_no_such_row(tmp_path: Path):
    ws = make_workspace(tmp_path / "ws", {"src/orders/calc.py": CLEAN, "mypy.ini": "[mypy]\n"})
    assert main(["review", "run", "--workspace", str(ws), "--unit", UNIT]) == 0
    names = [c["name"] for c in findings_doc(ws)["checks"]]
    assert "unjudged-source" not in names
