"""Waivers: a finding accepted on purpose stays visible and stops blocking, within limits."""

from __future__ import annotations

import json
from datetime import date, timedelta

import pytest

from aidlc_review.cli.main import main
from aidlc_review.review.inputs.paths import RecordPaths
from aidlc_review.review.record.models import FindingsDocument
from aidlc_review.review.record.receipt import with_waivers_digested
from aidlc_review.review.record.seal import seal
from aidlc_review.review.record.store import document_json, receipt_json
from aidlc_review.review.record.waivers import with_waivers
from aidlc_review.review.report.sarif import sarif_log
from aidlc_review.sensors.findings_schema import verdict_mismatches
from tests.review.workspace import LEAKY, LINT_ERROR, UNIT, make_workspace

RECORD = f"aidlc-docs/construction/{UNIT}/code-review"
TOMORROW = (date.today() + timedelta(days=1)).isoformat()


def review(ws, *extra: str) -> int:
    return main(["review", "run", "--workspace", str(ws), "--unit", UNIT, *extra])


def waive(ws, finding: str, *extra: str) -> int:
    return main(
        [
            "review",
            "waive",
            "--workspace",
            str(ws),
            "--unit",
            UNIT,
            finding,
            "--reason",
            "the import is kept for the plugin loader",
            "--by",
            "lead",
            *extra,
        ]
    )


def document(ws) -> FindingsDocument:
    return FindingsDocument.model_validate_json(
        (ws / RECORD / "code-review-findings.json").read_bytes()
    )


def finding_id(doc: FindingsDocument, check: str) -> str:
    (found,) = [f.id for f in doc.open_findings() if f.check == check]
    return found


def as_the_engine_would_write(ws, text: str) -> None:
    """Rewrite the findings document and seal it, with its receipt bound to it again, as
    aidlc-review on this machine does."""
    paths = RecordPaths.resolve(ws, UNIT, None, None)
    doc = FindingsDocument.model_validate_json(text)
    receipt = with_waivers_digested(doc.receipt, doc.passes, doc.waivers)
    text = document_json(doc.model_copy(update={"receipt": receipt}))
    paths.findings.write_text(text)
    seal(paths, paths.findings, text.encode())
    if receipt is not None:
        paths.receipt.write_text(receipt_json(receipt))
        seal(paths, paths.receipt, receipt_json(receipt).encode())


@pytest.fixture
def lint_only(tmp_path):
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": LINT_ERROR})
    assert review(ws) == 1
    return ws


def test_a_waiver_turns_not_ready_into_ready_and_stays_visible(lint_only, capsys):
    doc = document(lint_only)
    cr = finding_id(doc, "linter")
    assert doc.verdict == "NOT-READY" and [f.id for f in doc.open_findings() if f.blocking] == [cr]
    assert waive(lint_only, cr, "--expires", TOMORROW) == 0
    assert f"{cr} waived by lead until {TOMORROW}; verdict READY" in capsys.readouterr().err
    doc = document(lint_only)
    assert doc.verdict == "READY"
    (waiver,) = doc.waivers
    assert (waiver.finding, waiver.by, waiver.on.isoformat(), waiver.expires.isoformat()) == (
        cr,
        "lead",
        date.today().isoformat(),
        TOMORROW,
    )
    assert waiver.fingerprint == doc.open_findings()[0].fingerprint
    report = (lint_only / RECORD / "code-review.md").read_text()
    assert "**Verdict: READY**" in report
    assert "## Remaining findings (0)" in report
    assert "## Waived findings (1)" in report
    assert (
        f"  Waived by lead on {date.today().isoformat()} until {TOMORROW}: "
        "the import is kept for the plugin loader"
    ) in report
    raw = json.loads((lint_only / RECORD / "code-review-findings.json").read_text())
    assert verdict_mismatches(raw) == []  # the findings-schema sensor accepts a waived READY
    raw["waivers"] = []
    assert verdict_mismatches(raw) == [
        "$.verdict: READY although 1 critical/major finding(s) are open"
    ]
    assert main(["review", "gate", "--workspace", str(lint_only), "--unit", UNIT, "--approve"]) == 0


def test_sarif_marks_a_waived_result_suppressed_with_its_justification(lint_only, tmp_path):
    cr = finding_id(document(lint_only), "linter")
    assert waive(lint_only, cr) == 0
    sarif = tmp_path / "out.sarif"
    assert review(lint_only, "--sarif", str(sarif)) == 0
    (result,) = json.loads(sarif.read_text())["runs"][0]["results"]
    assert result["properties"]["id"] == cr
    assert result["suppressions"] == [
        {
            "kind": "external",
            "status": "accepted",
            "justification": "the import is kept for the plugin loader "
            f"(waived by lead on {date.today().isoformat()})",
        }
    ]


def test_a_waiver_is_kept_across_a_re_review_and_a_new_attempt(lint_only):
    cr = finding_id(document(lint_only), "linter")
    assert waive(lint_only, cr) == 0
    assert review(lint_only) == 0  # unchanged source: same pass result, still waived
    app = lint_only / "src/orders/app.py"
    app.write_text(app.read_text() + "\n\ndef more() -> int:\n    return 1\n")
    assert (
        main(["review", "gate", "--workspace", str(lint_only), "--unit", UNIT, "--request-changes"])
        == 0
    )
    assert review(lint_only) == 0  # attempt 2, a new pass: the same finding, still waived
    doc = document(lint_only)
    assert (doc.attempt, doc.verdict) == (2, "READY")
    assert doc.passes[-1].attempt == 2 and doc.passes[-1].verdict == "READY"
    assert [f.id for f in doc.open_findings()] == [cr]


def test_a_changed_finding_is_not_covered(lint_only):
    cr = finding_id(document(lint_only), "linter")
    assert waive(lint_only, cr) == 0
    (lint_only / "src/orders/app.py").write_text(
        "import sys\n\n\ndef answer() -> int:\n    return 42\n"
    )
    assert review(lint_only) == 1
    doc = document(lint_only)
    assert doc.verdict == "NOT-READY"
    # still F401 in app.py (same ID), but the waiver saw `os`, not `sys`
    [changed] = [f for f in doc.open_findings() if f.blocking]
    assert (changed.id, changed.finding.split(" (")[0]) == (cr, "F401 `sys` imported but unused")
    assert changed.fingerprint != doc.waivers[0].fingerprint


def test_an_expired_waiver_blocks_again(lint_only, capsys):
    cr = finding_id(document(lint_only), "linter")
    assert waive(lint_only, cr, "--expires", date.today().isoformat()) == 0
    doc = document(lint_only)
    assert doc.verdict == "READY"  # it holds through its last day
    later = with_waivers(doc, date.today() + timedelta(days=1))
    assert later.verdict == "NOT-READY"
    (held,) = sarif_log(later, date.today() + timedelta(days=1))["runs"][0]["results"]
    assert "suppressions" not in held
    # the day after, as the record has it: the expiry date moved back one day
    path = lint_only / RECORD / "code-review-findings.json"
    data = json.loads(path.read_text())
    data["waivers"][0]["expires"] = (date.today() - timedelta(days=1)).isoformat()
    as_the_engine_would_write(lint_only, json.dumps(data, indent=2) + "\n")
    capsys.readouterr()
    assert main(["review", "gate", "--workspace", str(lint_only), "--unit", UNIT, "--approve"]) == 1
    assert "approval refused: the verdict recomputed now is NOT-READY" in capsys.readouterr().err
    assert main(["review", "summary", "--from", str(lint_only / "aidlc-docs"), "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["verdict"] == "NOT-READY"
    assert review(lint_only) == 1


def test_a_secret_is_not_waivable_and_nothing_is_written(tmp_path, capsys):
    ws = make_workspace(tmp_path / "ws", {"src/orders/settings.py": LEAKY})
    assert review(ws) == 1
    path = ws / RECORD / "code-review-findings.json"
    before = path.read_bytes()
    cr = finding_id(document(ws), "secret-scan")
    capsys.readouterr()
    assert waive(ws, cr) == 1
    err = capsys.readouterr().err
    assert err.startswith(
        f"{cr} (critical security): a secret is not waivable: remove it, or "
        "record a test fixture's fake key in the workspace's .secrets.baseline"
    )
    assert path.read_bytes() == before


def test_bad_input_writes_nothing(lint_only, capsys):
    path = lint_only / RECORD / "code-review-findings.json"
    before = path.read_bytes()
    cr = finding_id(document(lint_only), "linter")
    capsys.readouterr()
    assert waive(lint_only, "CR-099") == 2
    assert capsys.readouterr().err.startswith("CR-099: no such finding in attempt 1")
    assert waive(lint_only, cr, "--expires", "2020-01-01") == 2
    assert capsys.readouterr().err == "--expires 2020-01-01: already past\n"
    assert waive(lint_only, cr, "--expires", "soon") == 2
    assert capsys.readouterr().err == "--expires 'soon': not a date (YYYY-MM-DD)\n"
    assert path.read_bytes() == before


def test_a_waiver_an_agent_writes_into_the_findings_json_approves_nothing(lint_only, capsys):
    cr = finding_id(document(lint_only), "linter")
    path = lint_only / RECORD / "code-review-findings.json"
    data = json.loads(path.read_text())
    data["waivers"] = [
        {
            "finding": cr,
            "fingerprint": document(lint_only).open_findings()[0].fingerprint,
            "reason": "looks fine to me",
            "by": "lead",
            "on": date.today().isoformat(),
            "expires": None,
        }
    ]
    data["verdict"] = "READY"
    path.write_text(json.dumps(data, indent=2) + "\n")
    capsys.readouterr()

    assert main(["review", "gate", "--workspace", str(lint_only), "--unit", UNIT, "--approve"]) == 1
    assert f"{RECORD}/code-review-findings.json: its seal does not match" in (
        capsys.readouterr().err
    )
    assert main(["review", "verify", "--workspace", str(lint_only), "--unit", UNIT]) == 1
    assert "its seal does not match" in capsys.readouterr().err
    assert document(lint_only).gate == []


def test_a_kill_between_sealing_and_writing_the_findings_loses_nothing(lint_only):
    paths = RecordPaths.resolve(lint_only, UNIT, None, None)
    before = paths.findings.read_bytes()
    cr = finding_id(document(lint_only), "linter")
    # the engine sealed the next document and was killed before writing it
    seal(paths, paths.findings, b'{"next": "document"}\n', before)

    assert waive(lint_only, cr) == 0  # the old bytes are still accepted, and the next write
    assert document(lint_only).verdict == "READY"  # settles the seal on the new ones
    assert main(["review", "gate", "--workspace", str(lint_only), "--unit", UNIT, "--approve"]) == 0


def test_deleting_the_baseline_and_the_seal_does_not_make_a_forged_waiver_count(lint_only, capsys):
    """Everything in the workspace can be deleted; that the document was sealed here is kept
    beside the key, so the next run still demands the seal."""
    engine = lint_only / "aidlc-docs/.aidlc-engine/code-review" / UNIT
    (engine / "baseline.json").unlink()
    for seal_file in (engine / "seals").iterdir():
        seal_file.unlink()
    doc = document(lint_only)
    (finding,) = doc.open_findings()
    path = lint_only / RECORD / "code-review-findings.json"
    data = json.loads(path.read_text())
    data["waivers"] = [
        {
            "finding": finding.id,
            "fingerprint": finding.fingerprint,
            "reason": "looks fine to me",
            "by": "lead",
            "on": date.today().isoformat(),
            "expires": None,
        }
    ]
    path.write_text(json.dumps(data, indent=2) + "\n")
    capsys.readouterr()

    assert review(lint_only) == 1
    assert "code-review-findings.json: its seal does not match" in capsys.readouterr().err
    assert main(["review", "gate", "--workspace", str(lint_only), "--unit", UNIT, "--approve"]) == 1
    assert document(lint_only).gate == []
