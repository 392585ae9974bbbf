"""``review.record.proof``: approvable only as the bytes, findings and waivers decide now."""

from __future__ import annotations

import json
from datetime import date, timedelta
from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from aidlc_review.errors import InvalidInput
from aidlc_review.review.inputs.paths import RecordPaths
from aidlc_review.review.record.models import FindingsDocument
from aidlc_review.review.record.proof import Proof, prove_unit
from aidlc_review.review.record.receipt import with_waivers_digested
from aidlc_review.review.record.seal import ForgedState, seal
from aidlc_review.review.record.store import document_json, receipt_json
from aidlc_review.review.record.waive import waive_finding
from tests.review.workspace import CLEAN, LINT_ERROR, UNIT, make_workspace, review_args, write

APP = "src/orders/app.py"
FINDINGS = f"aidlc-docs/construction/{UNIT}/code-review/code-review-findings.json"
TODAY = date.today()
ELSEWHERE = [
    f"{FINDINGS}: written elsewhere (not sealed by aidlc-review on this machine): its reviewer "
    "findings are counted as recorded, not re-examined",
    f"{FINDINGS}: unclaimed changes since its stage entry are not checked here "
    "(the stage-entry baseline is the reviewing machine's)",
]
F401 = "F401 `os` imported but unused (https://docs.astral.sh/ruff/rules/unused-import)"


def _reviewed(tmp_path: Path, source: str, code: int) -> RecordPaths:
    ws = make_workspace(tmp_path / "ws", {APP: source})
    assert main(review_args(ws)) == code
    return RecordPaths.resolve(ws, UNIT)


@pytest.fixture
def clean(tmp_path, capsys) -> RecordPaths:
    return _reviewed(tmp_path, CLEAN, 0)


@pytest.fixture
def lint_only(tmp_path, capsys) -> RecordPaths:
    """Reviewed here: NOT-READY on one waivable finding, CR-001 (F401)."""
    return _reviewed(tmp_path, LINT_ERROR, 1)


def _as_the_engine_would_write(paths: RecordPaths, doc: FindingsDocument) -> None:
    """Save ``doc`` sealed as this machine's engine seals, its receipt bound to it again."""
    receipt = with_waivers_digested(doc.receipt, doc.passes, doc.waivers)
    assert receipt is not None
    receipt = receipt.model_copy(update={"verdict": doc.passes[-1].verdict})
    text = document_json(doc.model_copy(update={"receipt": receipt}))
    paths.findings.write_text(text)
    seal(paths, paths.findings, text.encode())
    paths.receipt.write_text(receipt_json(receipt))
    seal(paths, paths.receipt, receipt_json(receipt).encode())


def _document(paths: RecordPaths) -> FindingsDocument:
    return FindingsDocument.model_validate_json(paths.findings.read_bytes())


def test_a_proof_is_ready_only_when_recorded_unrefused_provable_and_ready():
    assert Proof("u", "READY").ready
    assert not Proof("u", "NOT-READY").ready
    assert not Proof("u", "READY", recorded=False).ready
    assert not Proof("u", "READY", stale=["a: changed"]).ready
    assert not Proof("u", "READY", tampered=["a: forged"]).ready
    assert not Proof("u", "READY", unprovable=["a: not checked here"]).ready
    assert Proof("u", "READY", unproven=["a: waivers from elsewhere"]).ready


def test_the_reasons_are_the_stale_and_tampered_lines_sorted_once_each():
    proof = Proof("u", "READY", stale=["b: changed", "a: gone"], tampered=["b: changed", "c: x"])

    assert proof.reasons == ["a: gone", "b: changed", "c: x"]


def test_a_unit_never_reviewed_is_unrecorded_and_not_ready(tmp_path):
    paths = RecordPaths.resolve(make_workspace(tmp_path / "ws", {APP: CLEAN}), UNIT)

    assert prove_unit(paths) == Proof(UNIT, "NOT-READY", recorded=False, sealed_here=False)


def test_a_findings_document_deleted_after_the_review_is_stale(clean):
    clean.findings.unlink()

    assert prove_unit(clean) == Proof(
        UNIT,
        "NOT-READY",
        recorded=False,
        stale=[f"{FINDINGS}: findings document deleted since the review; nothing is approved"],
    )


def test_a_clean_review_made_here_is_proven_ready(clean):
    proof = prove_unit(clean)

    assert proof == Proof(UNIT, "READY", claimed="READY")
    assert proof.ready


def test_an_open_blocking_finding_is_recomputed_not_ready_and_named(lint_only):
    for proof in (prove_unit(lint_only), prove_unit(lint_only, recompute=False)):
        assert (proof.verdict, proof.claimed, proof.ready) == ("NOT-READY", "NOT-READY", False)
        assert [(f.id, f.finding) for f in proof.blocking] == [("CR-001", F401)]
        assert (proof.stale, proof.tampered, proof.waived) == ([], [], {})


def test_bytes_changed_since_the_receipt_refuse_approval(clean):
    write(clean.workspace / APP, CLEAN + "\nLIMIT = 3\n")

    proof = prove_unit(clean)

    assert proof.reasons == [f"{APP}: claimed file changed since the receipt"]
    assert not proof.ready


def test_a_waiver_in_force_makes_it_ready_and_is_named_until_it_expires(lint_only):
    waiver = waive_finding(lint_only, "CR-001", "kept for the loader", "lead", TODAY, TODAY)
    (held,) = waiver.waivers

    today = prove_unit(lint_only, today=TODAY)
    tomorrow = prove_unit(lint_only, today=TODAY + timedelta(days=1))

    assert (today.verdict, today.blocking, today.waived, today.ready) == (
        "READY",
        [],
        {"CR-001": held},
        True,
    )
    # the stored READY is only old once the waiver lapsed: not a forgery
    assert (tomorrow.verdict, tomorrow.claimed, tomorrow.tampered, tomorrow.waived) == (
        "NOT-READY",
        "READY",
        [],
        {},
    )
    assert [f.id for f in tomorrow.blocking] == ["CR-001"]


def test_a_sensor_finding_dropped_from_a_sealed_record_is_found_again_by_the_sensors(lint_only):
    doc = _document(lint_only)
    last = doc.passes[-1].model_copy(update={"findings": [], "verdict": "READY"})
    _as_the_engine_would_write(
        lint_only, doc.model_copy(update={"passes": [last], "verdict": "READY"})
    )

    assert prove_unit(lint_only, recompute=False).ready  # the record agrees with itself
    proof = prove_unit(lint_only)

    assert (proof.verdict, proof.ready) == ("NOT-READY", False)
    assert proof.tampered == [
        f"{APP}: recomputed now, linter reports F401 (major): {F401}; "
        "the record does not hold it open"
    ]
    assert [f.finding for f in proof.blocking] == [F401]


def test_a_sealed_record_edited_by_hand_is_refused_as_forged(clean):
    clean.findings.write_bytes(clean.findings.read_bytes().replace(b'"READY"', b'"NOT-READY"', 1))

    with pytest.raises(ForgedState, match=f"^{FINDINGS}: its seal does not match"):
        prove_unit(clean)


def test_a_document_from_elsewhere_is_proven_only_as_far_as_its_bytes_go(lint_only):
    proof = prove_unit(lint_only, document=lint_only.findings.read_bytes())

    assert (proof.verdict, proof.sealed_here, proof.stale, proof.tampered) == (
        "NOT-READY",
        False,
        [],
        [],
    )
    assert [f.id for f in proof.blocking] == ["CR-001"]
    assert proof.unproven == ELSEWHERE


def test_waivers_recorded_elsewhere_do_not_count_and_are_said_not_to(lint_only):
    waive_finding(lint_only, "CR-001", "kept for the loader", "lead", None, TODAY)
    assert prove_unit(lint_only).ready

    proof = prove_unit(lint_only, document=lint_only.findings.read_bytes())

    assert (proof.verdict, proof.waived, proof.ready) == ("NOT-READY", {}, False)
    assert proof.unproven == [
        *ELSEWHERE,
        f"{FINDINGS}: its waivers (CR-001) were recorded elsewhere and cannot be proven here: "
        "they do not count",
    ]


def test_unclaimed_changes_are_not_checked_for_a_document_from_elsewhere(clean):
    write(clean.workspace / "src/other.py", CLEAN)

    here = prove_unit(clean)
    elsewhere = prove_unit(clean, document=clean.findings.read_bytes())

    assert here.stale == ["src/other.py: unclaimed source added since the stage-entry baseline"]
    assert (elsewhere.stale, elsewhere.verdict, elsewhere.ready) == ([], "READY", True)


def test_a_document_from_elsewhere_claiming_ready_over_a_blocking_finding_is_tampered(
    lint_only,
):
    raw = json.loads(lint_only.findings.read_bytes())
    raw["verdict"] = "READY"

    proof = prove_unit(lint_only, document=json.dumps(raw).encode())

    assert (proof.claimed, proof.verdict, proof.ready) == ("READY", "NOT-READY", False)
    assert proof.tampered == [
        f"{FINDINGS}: stored verdict READY, but its own findings decide NOT-READY (CR-001 major)"
    ]


def test_pre_existing_findings_judged_against_an_unknown_base_count_as_open(lint_only):
    doc = _document(lint_only)
    last = doc.passes[-1]
    old = [f.model_copy(update={"status": "pre-existing"}) for f in last.findings]
    doc = doc.model_copy(update={"passes": [last.model_copy(update={"findings": old})]})
    doc = doc.model_copy(
        update={"receipt": with_waivers_digested(doc.receipt, doc.passes, doc.waivers)}
    )

    proof = prove_unit(lint_only, document=document_json(doc).encode())

    assert proof.unprovable == [
        f"{FINDINGS}: its pre-existing findings (CR-001) were judged against a base not known "
        "here (set `base-revision` in [tool.aidlc-review]): they count as open"
    ]
    assert [f.id for f in proof.blocking] == ["CR-001"]
    assert (proof.tampered, proof.ready) == ([], False)


def test_a_document_from_elsewhere_that_is_not_a_findings_document_is_bad_input(clean):
    with pytest.raises(InvalidInput) as refused:
        prove_unit(clean, document=b'{"version": 1}')

    shown = str(clean.findings)
    assert str(refused.value) == "\n".join(
        f"{shown}: $.{key}: is required"
        for key in ("attempt", "checks", "passes", "unit", "verdict")
    )
