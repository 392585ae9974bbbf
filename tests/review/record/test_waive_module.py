"""``review.record.waive``: a waiver goes only into a review made here, under the unit's lock."""

from __future__ import annotations

import subprocess
import sys
import time
from datetime import date, timedelta

import pytest

from aidlc_review.cli.main import main
from aidlc_review.errors import InvalidInput
from aidlc_review.review.inputs.paths import RecordPaths
from aidlc_review.review.record.models import FindingsDocument
from aidlc_review.review.record.store import load_receipt, load_unit_document
from aidlc_review.review.record.waive import load_with_waivers, waive_finding
from tests.review.workspace import CLEAN, LINT_ERROR, UNIT, make_workspace, review_args

FINDINGS = f"aidlc-docs/construction/{UNIT}/code-review/code-review-findings.json"
TODAY = date.today()
REASON = "the import is kept for the plugin loader"


@pytest.fixture
def lint_only(tmp_path, capsys) -> RecordPaths:
    """A unit reviewed here whose one blocking finding (CR-001, F401) is waivable."""
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": LINT_ERROR})
    assert main(review_args(ws)) == 1
    capsys.readouterr()
    return RecordPaths.resolve(ws, UNIT)


def _waive(paths: RecordPaths, finding: str = "CR-001", expires: date | None = None):
    return waive_finding(paths, finding, REASON, "lead", expires, TODAY)


def test_a_waiver_is_recorded_on_disk_and_turns_the_verdict_ready(lint_only):
    before = load_unit_document(lint_only)
    assert before is not None and before.verdict == "NOT-READY"
    tomorrow = TODAY + timedelta(days=1)

    updated = _waive(lint_only, expires=tomorrow)

    assert updated.verdict == "READY"
    (waiver,) = updated.waivers
    (finding,) = before.open_findings()
    assert (waiver.finding, waiver.fingerprint, waiver.reason, waiver.by) == (
        "CR-001",
        finding.fingerprint,
        REASON,
        "lead",
    )
    assert (waiver.on, waiver.expires) == (TODAY, tomorrow)
    assert load_unit_document(lint_only) == updated  # saved, and sealed as this machine's
    assert load_receipt(lint_only) == updated.receipt
    assert "## Waived findings (1)" in lint_only.report.read_text()


def test_a_unit_never_reviewed_has_nothing_to_waive(tmp_path):
    paths = RecordPaths.resolve(make_workspace(tmp_path / "ws", {"src/orders/app.py": CLEAN}), UNIT)

    with pytest.raises(InvalidInput) as refused:
        _waive(paths)

    assert str(refused.value) == (
        f"{FINDINGS}: no review to waive a finding of; run `aidlc-review review run` first"
    )
    assert not paths.findings.exists()


def test_a_review_this_machine_did_not_write_takes_no_waiver(lint_only, monkeypatch, tmp_path):
    before = lint_only.findings.read_bytes()
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "another-machine"))

    with pytest.raises(InvalidInput) as refused:
        _waive(lint_only)

    assert str(refused.value) == (
        f"{FINDINGS}: not written by aidlc-review on this machine; a waiver is recorded only "
        "in a review made here: run `aidlc-review review run` first"
    )
    assert lint_only.findings.read_bytes() == before


@pytest.mark.parametrize(
    "finding, expires, message",
    [
        (
            "CR-009",
            None,
            "CR-009: no such finding in attempt 1 (did you mean 'CR-001'?); findings: CR-001",
        ),
        ("CR-001", date(2000, 1, 1), "--expires 2000-01-01: already past"),
    ],
    ids=["unknown finding", "expiry in the past"],
)
def test_a_refused_waiver_leaves_the_document_as_it_was(lint_only, finding, expires, message):
    before = lint_only.findings.read_bytes()

    with pytest.raises(InvalidInput) as refused:
        _waive(lint_only, finding, expires)

    assert str(refused.value) == message
    assert lint_only.findings.read_bytes() == before


def test_a_waiver_waits_for_another_holder_of_the_units_lock(lint_only):
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\nfrom filelock import FileLock\n"
            "with FileLock(sys.argv[1]):\n    print('held', flush=True)\n    time.sleep(1)\n",
            str(lint_only.lock),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    start = time.monotonic()

    updated = _waive(lint_only)

    assert time.monotonic() - start >= 0.5
    assert holder.wait(timeout=10) == 0
    assert updated.verdict == "READY"


def test_loading_without_a_review_made_here_is_none(tmp_path, lint_only, monkeypatch):
    fresh = RecordPaths.resolve(make_workspace(tmp_path / "other", {"src/a.py": CLEAN}), UNIT)
    assert load_with_waivers(fresh, TODAY) is None

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "another-machine"))
    assert load_with_waivers(lint_only, TODAY) is None


def test_loading_under_waivers_still_in_force_rewrites_nothing(lint_only):
    _waive(lint_only, expires=TODAY + timedelta(days=1))
    before = (lint_only.findings.read_bytes(), lint_only.findings.stat().st_mtime_ns)

    doc = load_with_waivers(lint_only, TODAY + timedelta(days=1))

    assert doc is not None and doc.verdict == "READY"
    assert (lint_only.findings.read_bytes(), lint_only.findings.stat().st_mtime_ns) == before


def test_loading_after_a_waiver_expired_decides_not_ready_again_and_saves_it(lint_only):
    _waive(lint_only, expires=TODAY)

    doc = load_with_waivers(lint_only, TODAY + timedelta(days=1))

    assert doc is not None and doc.verdict == "NOT-READY"
    assert len(doc.waivers) == 1  # the expired waiver stays on record
    saved = FindingsDocument.model_validate_json(lint_only.findings.read_bytes())
    assert saved == doc
    assert load_unit_document(lint_only) == doc  # sealed again: still this machine's
