"""Receipts, ``review verify`` and the two-option gate."""

from __future__ import annotations

import json

import pytest

from aidlc_review.cli.main import main
from aidlc_review.review.record.verify import verify_review
from tests.review.workspace import (
    CLEAN,
    UNIT,
    findings_doc,
    make_workspace,
    manifest_path,
    review_args,
    write,
    write_manifest,
)


def _reviewed(tmp_path):
    ws = make_workspace(
        tmp_path / "ws",
        {"src/orders/app.py": CLEAN, "src/orders/util.py": CLEAN},
        claims=["src/orders/"],
    )
    assert main(review_args(ws)) == 0
    return ws


def _verify(ws, capsys):
    capsys.readouterr()
    code = main(["review", "verify", "--workspace", str(ws), "--unit", UNIT])
    return code, capsys.readouterr().out


def test_a_fresh_receipt_verifies_and_can_be_approved(tmp_path, capsys):
    ws = _reviewed(tmp_path)
    assert _verify(ws, capsys) == (0, "fresh: the receipt matches the source\n")
    receipt = findings_doc(ws)["receipt"]
    assert sorted(receipt["files"]) == ["src/orders/app.py", "src/orders/util.py"]
    assert (
        receipt["manifest"]
        == f"aidlc-docs/construction/{UNIT}/code-generation/source-manifest.json"
    )
    assert main(["review", "gate", "--workspace", str(ws), "--unit", UNIT, "--approve"]) == 0
    audit = ("at", "by")  # checked in test_audit
    assert [{k: v for k, v in g.items() if k not in audit} for g in findings_doc(ws)["gate"]] == [
        {
            "attempt": 1,
            "decision": "approve",
            "note": None,
            "receipt_fingerprint": receipt["unit_source_fingerprint"],
        }
    ]


@pytest.mark.parametrize(
    "change, named",
    [
        ("claimed", "src/orders/app.py: claimed file changed since the receipt"),
        (
            "manifest",
            f"aidlc-docs/construction/{UNIT}/code-generation/source-manifest.json: "
            "source manifest changed since the receipt",
        ),
        ("unclaimed", "src/other.py: unclaimed source added since the stage-entry baseline"),
        ("new-claim", "src/orders/extra.py: newly claimed since the receipt"),
    ],
)
def test_a_change_after_the_receipt_is_stale_and_approval_is_refused(
    tmp_path, capsys, change, named
):
    ws = _reviewed(tmp_path)
    capsys.readouterr()
    if change == "claimed":
        write(ws / "src/orders/app.py", CLEAN + "\nEXTRA = 1\n")
    elif change == "manifest":
        write_manifest(ws, ["src/orders/", "pyproject.toml"])
    elif change == "unclaimed":
        write(ws / "src/other.py", CLEAN)
    else:
        write(ws / "src/orders/extra.py", CLEAN)
    code, out = _verify(ws, capsys)
    assert code == 1 and f"stale: {named}\n" in out
    assert main(["review", "gate", "--workspace", str(ws), "--unit", UNIT, "--approve"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("approval refused: the review no longer matches the source:\n")
    assert f"  {named}\n" in err
    assert findings_doc(ws)["gate"] == []


def test_the_record_and_tool_leftovers_are_not_application_source(tmp_path, capsys):
    ws = _reviewed(tmp_path)
    write(ws / "aidlc-docs" / "notes.md", "# notes\n")
    write(ws / ".coverage", "data")
    assert verify_review(ws, UNIT) == []


def test_request_changes_starts_attempt_two_with_a_fresh_budget(tmp_path, capsys):
    ws = _reviewed(tmp_path)
    write(ws / "src/orders/app.py", CLEAN + "\nEXTRA = 1\n")
    assert (
        main(
            [
                "review",
                "gate",
                "--workspace",
                str(ws),
                "--unit",
                UNIT,
                "--request-changes",
                "--note",
                "rename EXTRA",
            ]
        )
        == 0
    )
    assert "changes requested on attempt 1; attempt 2 starts" in capsys.readouterr().out
    doc = findings_doc(ws)
    assert (doc["attempt"], doc["verdict"], doc["receipt"]) == (2, "NOT-READY", None)
    assert main(review_args(ws)) == 0
    doc = findings_doc(ws)
    assert [(p["attempt"], p["pass"]) for p in doc["passes"]] == [(1, 1), (2, 1)]
    assert doc["receipt"]["attempt"] == 2 and verify_review(ws, UNIT) == []
    assert (
        "| 2 | 1 | READY |"
        in (manifest_path(ws).parents[1] / "code-review" / "code-review.md").read_text()
    )


def test_an_exhausted_attempt_with_changed_source_must_go_through_the_gate(tmp_path, capsys):
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": "import os\n"})
    assert main(review_args(ws)) == 1
    assert main(review_args(ws, "--mode", "gated")) == 1  # unchanged: nothing new
    write(ws / "src/orders/app.py", "import sys\n")
    assert main(review_args(ws)) == 1  # pass 2 of 2
    write(ws / "src/orders/app.py", "import json\n")
    assert main(review_args(ws)) == 2
    err = capsys.readouterr().err
    assert (
        f"aidlc-docs/construction/{UNIT}/code-review/code-review-findings.json: attempt 1 has "
        "used its 2 pass(es) and the source changed since; decide at the gate"
    ) in err


def test_status_reports_the_state_as_json(tmp_path, capsys):
    ws = _reviewed(tmp_path)
    capsys.readouterr()
    assert main(["review", "status", "--workspace", str(ws), "--unit", UNIT, "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert (status["state"], status["verdict"], status["passes_used"], status["stale"]) == (
        "at-gate",
        "READY",
        1,
        [],
    )


def test_approving_a_not_ready_unit_is_refused_quoting_its_blocking_findings(tmp_path, capsys):
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": "import os\n"})
    assert main(review_args(ws)) == 1
    findings = ws / f"aidlc-docs/construction/{UNIT}/code-review/code-review-findings.json"
    before = findings.read_bytes()
    capsys.readouterr()
    assert main(["review", "gate", "--workspace", str(ws), "--unit", UNIT, "--approve"]) == 1
    assert capsys.readouterr().err == (
        "approval refused: the verdict recomputed now is NOT-READY; open blocking findings:\n"
        "  CR-001 major src/orders/app.py: F401 `os` imported but unused"
        " (https://docs.astral.sh/ruff/rules/unused-import)\n"
        "repair and run `aidlc-review review run` again, or request changes\n"
    )
    assert findings.read_bytes() == before
