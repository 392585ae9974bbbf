"""``review.record.freshness``: each way the bytes on disk left the receipt, one line, sorted."""

from __future__ import annotations

from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from aidlc_review.review.inputs.paths import RecordPaths
from aidlc_review.review.record.freshness import stale_reasons
from aidlc_review.review.record.models import Receipt
from aidlc_review.review.record.store import load_receipt
from tests.review.workspace import CLEAN, UNIT, make_workspace, review_args, write, write_manifest

CONSTRUCTION = f"aidlc-docs/construction/{UNIT}"
MANIFEST = f"{CONSTRUCTION}/code-generation/source-manifest.json"
FINDINGS = f"{CONSTRUCTION}/code-review/code-review-findings.json"
BASELINE = f"aidlc-docs/.aidlc-engine/code-review/{UNIT}/baseline.json"


def _workspace(tmp_path: Path) -> Path:
    files = {"src/orders/app.py": CLEAN, "src/orders/util.py": CLEAN}
    return make_workspace(tmp_path / "ws", files, claims=["src/orders/"])


@pytest.fixture
def reviewed(tmp_path, capsys) -> tuple[Path, RecordPaths, Receipt]:
    ws = _workspace(tmp_path)
    assert main(review_args(ws)) == 0
    capsys.readouterr()
    paths = RecordPaths.resolve(ws, UNIT)
    receipt = load_receipt(paths)
    assert receipt is not None
    return ws, paths, receipt


def test_a_unit_never_reviewed_has_no_receipt_and_says_what_to_run(tmp_path):
    paths = RecordPaths.resolve(_workspace(tmp_path), UNIT)

    assert stale_reasons(paths, None) == [
        f"{FINDINGS}: no receipt; run `aidlc-review review run` first"
    ]


def test_a_receipt_file_this_machine_did_not_seal_is_named_as_such(reviewed, monkeypatch, tmp_path):
    _, paths, _ = reviewed
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "another-machine"))
    assert load_receipt(paths) is None

    assert stale_reasons(paths, load_receipt(paths)) == [
        f"{CONSTRUCTION}/code-review/code-review-receipt.json: not sealed by aidlc-review on "
        "this machine (written elsewhere, or its seal was removed); run `aidlc-review review run`"
    ]


def test_a_receipt_matching_the_bytes_is_fresh(reviewed):
    _, paths, receipt = reviewed

    assert stale_reasons(paths, receipt) == []
    assert stale_reasons(paths, receipt, drift=False) == []


def test_a_claimed_file_changed_or_deleted_is_named_by_its_path(reviewed):
    ws, paths, receipt = reviewed
    write(ws / "src/orders/app.py", CLEAN + "\nLIMIT = 3\n")
    (ws / "src/orders/util.py").unlink()

    assert stale_reasons(paths, receipt) == [
        "src/orders/app.py: claimed file changed since the receipt",
        "src/orders/util.py: claimed file deleted since the receipt",
    ]


def test_a_file_newly_under_a_claimed_folder_is_newly_claimed(reviewed):
    ws, paths, receipt = reviewed
    write(ws / "src/orders/extra.py", CLEAN)

    assert stale_reasons(paths, receipt, drift=False) == [
        "src/orders/extra.py: newly claimed since the receipt"
    ]


def test_an_unreadable_entry_under_a_claimed_folder_is_claimed_but_unreadable(reviewed):
    ws, paths, receipt = reviewed
    (ws / "src/orders/gone.py").symlink_to("nowhere.py")

    assert stale_reasons(paths, receipt, drift=False) == [
        "src/orders/gone.py: claimed but dangling symlink"
    ]
    # claimed, so not also "unclaimed source" when the unclaimed changes are checked
    assert stale_reasons(paths, receipt) == ["src/orders/gone.py: claimed but dangling symlink"]


def test_a_changed_manifest_is_stale_even_when_it_claims_the_same_files(reviewed):
    ws, paths, receipt = reviewed
    write_manifest(ws, ["src/orders/app.py", "src/orders/util.py"])

    assert stale_reasons(paths, receipt) == [
        f"{MANIFEST}: source manifest changed since the receipt"
    ]


def test_a_deleted_manifest_is_stale_and_its_claims_cannot_be_checked(reviewed):
    ws, paths, receipt = reviewed
    paths.manifest.unlink()

    assert stale_reasons(paths, receipt) == [
        f"{MANIFEST}: claims cannot be checked: {ws / MANIFEST}: cannot read the source "
        "manifest: No such file or directory",
        f"{MANIFEST}: source manifest deleted since the receipt",
    ]


def test_every_reason_comes_sorted_by_path(reviewed):
    ws, paths, receipt = reviewed
    write(ws / "src/orders/util.py", "")
    write(ws / "src/orders/a_new.py", CLEAN)
    write_manifest(ws, ["src/orders/", "pyproject.toml"])

    reasons = stale_reasons(paths, receipt, drift=False)

    assert reasons == [
        f"{MANIFEST}: source manifest changed since the receipt",
        "pyproject.toml: newly claimed since the receipt",
        "src/orders/a_new.py: newly claimed since the receipt",
        "src/orders/util.py: claimed file changed since the receipt",
    ]


def test_an_unclaimed_change_is_stale_only_when_drift_is_checked(reviewed):
    ws, paths, receipt = reviewed
    write(ws / "src/other.py", CLEAN)

    assert stale_reasons(paths, receipt) == [
        "src/other.py: unclaimed source added since the stage-entry baseline"
    ]
    assert stale_reasons(paths, receipt, drift=False) == []


def test_a_missing_stage_entry_baseline_is_stale_only_when_drift_is_checked(reviewed):
    _, paths, receipt = reviewed
    paths.baseline.unlink()

    assert stale_reasons(paths, receipt) == [f"{BASELINE}: stage-entry baseline missing"]
    assert stale_reasons(paths, receipt, drift=False) == []
