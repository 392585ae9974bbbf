"""``aidlc-review hook units``: which units a change touches (the CI matrix's input)."""

from __future__ import annotations

import json

from aidlc_review.cli.main import main
from tests.ci.units import CLAIMS, three_unit_workspace


def units_for(capsys, workspace, changed: list[str] | None) -> list[str]:
    argv = ["hook", "units", "--workspace", str(workspace), "--json"]
    if changed is not None:
        listing = workspace.parent / "changed.txt"
        listing.write_text("".join(f"{path}\n" for path in changed))
        argv += ["--changed-from", str(listing)]
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_claimed_files_and_the_unit_record_select_units(tmp_path, capsys):
    workspace = three_unit_workspace(tmp_path / "repo")
    assert units_for(capsys, workspace, None) == sorted(CLAIMS)
    assert units_for(capsys, workspace, ["src/inventory/pricing.py", "README.md"]) == ["u2-pricing"]
    record = "aidlc-docs/construction/u3-http/code-review/code-review-findings.json"
    assert units_for(capsys, workspace, [record, "tests/test_ledger.py"]) == [
        "u1-ledger",
        "u3-http",
    ]
    assert units_for(capsys, workspace, ["docs/notes.md"]) == []


def test_a_missing_change_list_is_bad_input(tmp_path, capsys):
    code = main(["hook", "units", "--workspace", str(tmp_path), "--changed-from", "nope.txt"])
    assert code == 2
    assert capsys.readouterr().err == "--changed-from nope.txt: no such file\n"


def test_units_whose_records_the_engine_keeps_under_construction_units_are_selected_there(
    tmp_path, capsys
):
    workspace = three_unit_workspace(tmp_path / "repo")
    construction = workspace / "aidlc-docs" / "construction"
    (construction / "units").mkdir()
    for unit in CLAIMS:  # the newest engine's layout (docs/upstream-newer.md)
        (construction / unit).rename(construction / "units" / unit)

    assert units_for(capsys, workspace, None) == sorted(CLAIMS)
    record = "aidlc-docs/construction/units/u3-http/code-review/code-review-findings.json"
    assert units_for(capsys, workspace, [record, "src/inventory/pricing.py"]) == [
        "u2-pricing",
        "u3-http",
    ]
