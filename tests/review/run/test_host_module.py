"""Spec of ``review.run.host``: start binds a request id, submit refuses or concludes it once."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from aidlc_review.errors import EXIT_FAILED, InvalidInput
from aidlc_review.review.inputs.paths import RecordPaths
from aidlc_review.review.run.api import ReviewRequest
from aidlc_review.review.run.host import (
    HOST_AGENT,
    StaleRequest,
    Started,
    start_review,
    submit_review,
)
from tests.review.workspace import CLEAN, UNIT, findings_doc, make_workspace, write

APP = "src/orders/app.py"
FINDINGS = f"aidlc-docs/construction/{UNIT}/code-review/code-review-findings.json"
NOT_READY = {
    "verdict": "NOT-READY",
    "summary": "Negative prices pass.",
    "findings": [
        {
            "severity": "major",
            "category": "correctness",
            "path": APP,
            "location": "4-5",
            "finding": "total() accepts negative prices",
            "evidence": "`return sum(prices)` runs with no check before it",
            "recommendation": "Reject negative prices with ValueError.",
        }
    ],
}


def workspace(tmp_path: Path) -> Path:
    return make_workspace(tmp_path / "ws", {APP: CLEAN})


def start(ws: Path) -> Started:
    return start_review(ReviewRequest(workspace=ws, unit=UNIT))


def answer_file(tmp_path: Path, answer: object, name: str = "answer.json") -> Path:
    path = tmp_path / name
    path.write_text(answer if isinstance(answer, str) else json.dumps(answer))
    return path


def saved_request(ws: Path, request_id: str) -> dict:
    paths = RecordPaths.resolve(ws, UNIT)
    return json.loads((paths.requests / f"{request_id}.json").read_text())


def test_start_names_the_pass_and_binds_the_request_id_to_source_mode_and_harness(
    tmp_path: Path,
) -> None:
    ws = workspace(tmp_path)
    started = start(ws)
    saved = saved_request(ws, started.request_id)
    bound = f"{saved['fingerprint']}\0{saved['mode']}\0{saved['harness']}".encode()
    assert started.request_id == f"{UNIT}-a1-p1-{hashlib.sha256(bound).hexdigest()[:8]}"
    assert (started.attempt, started.number, started.budget) == (1, 1, 2)
    assert (saved["request"], saved["attempt"], saved["pass"], saved["mode"]) == (
        started.request_id,
        1,
        1,
        "gated",
    )
    assert sorted(saved["files"]) == [APP]
    assert started.brief == RecordPaths.resolve(ws, UNIT).brief("reviewer", 1, 1)
    assert f"- `{APP}`" in started.brief.read_text()
    assert not (ws / FINDINGS).exists()  # starting records no pass


@pytest.mark.parametrize("request_id", ["../../etc/passwd", "u1 a1", "", "a/b"])
def test_a_request_id_of_another_shape_is_bad_input(tmp_path: Path, request_id: str) -> None:
    ws = workspace(tmp_path)
    with pytest.raises(InvalidInput) as refused:
        submit_review(ws, UNIT, request_id, answer_file(tmp_path, NOT_READY))
    assert str(refused.value) == (
        f"--request {request_id!r}: not a request id printed by `review start`"
    )


def test_a_request_start_never_printed_is_bad_input(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    with pytest.raises(InvalidInput) as refused:
        submit_review(ws, UNIT, f"{UNIT}-a1-p1-0badc0de", answer_file(tmp_path, NOT_READY))
    assert str(refused.value) == f"--request {UNIT}-a1-p1-0badc0de: no such request for this unit"


def test_bad_answers_record_nothing_and_the_request_then_concludes_exactly_once(
    tmp_path: Path,
) -> None:
    ws = workspace(tmp_path)
    started = start(ws)
    missing = tmp_path / "nowhere.json"
    with pytest.raises(InvalidInput) as refused:
        submit_review(ws, UNIT, started.request_id, missing)
    assert str(refused.value) == f"{missing}: cannot read the answer: No such file or directory"
    empty = answer_file(tmp_path, "", "empty.json")
    with pytest.raises(InvalidInput) as refused:
        submit_review(ws, UNIT, started.request_id, empty)
    assert str(refused.value) == f"{empty}: empty answer"
    prose = answer_file(tmp_path, "Looks good to me!", "prose.txt")
    with pytest.raises(InvalidInput) as refused:
        submit_review(ws, UNIT, started.request_id, prose)
    assert str(refused.value) == (
        f"{prose}: answer is not JSON: Expecting value: line 1 column 1 (char 0)"
    )
    assert not (ws / FINDINGS).exists()

    fenced = f"My review:\n```json\n{json.dumps(NOT_READY)}\n```\n"  # a shape agents print
    outcome = submit_review(
        ws, UNIT, started.request_id, answer_file(tmp_path, fenced), by="host-operator"
    )
    assert (outcome.verdict, outcome.passes_used, outcome.attempt) == ("NOT-READY", 1, 1)
    [recorded] = findings_doc(ws)["passes"]
    assert (recorded["reviewer"]["agent"], recorded["by"]) == (HOST_AGENT, "host-operator")
    assert [(f["id"], f["path"], f["location"]) for f in recorded["findings"]] == [
        ("CR-001", APP, "4-5")
    ]
    with pytest.raises(InvalidInput) as refused:
        submit_review(ws, UNIT, started.request_id, answer_file(tmp_path, NOT_READY))
    assert str(refused.value) == (
        f"--request {started.request_id}: already submitted, or superseded; "
        "run `review start` again"
    )
    assert len(findings_doc(ws)["passes"]) == 1


def test_a_request_id_not_bound_to_the_saved_source_or_a_moved_source_is_stale(
    tmp_path: Path,
) -> None:
    ws = workspace(tmp_path)
    started = start(ws)
    saved = saved_request(ws, started.request_id)
    forged = f"{UNIT}-a1-p1-00000000"  # the same saved request, under an id start never printed
    requests = RecordPaths.resolve(ws, UNIT).requests
    write(requests / f"{forged}.json", json.dumps({**saved, "request": forged}))
    answer = answer_file(tmp_path, NOT_READY)
    with pytest.raises(StaleRequest) as refused:
        submit_review(ws, UNIT, forged, answer)
    assert str(refused.value) == (
        f"--request {forged}: the claimed source, the manifest or the saved request "
        "changed since `review start`; run `review start` again"
    )
    assert refused.value.exit_code == EXIT_FAILED
    write(ws / APP, CLEAN + "\nEXTRA = 1\n")
    with pytest.raises(StaleRequest, match=f"^--request {started.request_id}: the claimed"):
        submit_review(ws, UNIT, started.request_id, answer)
    assert not (ws / FINDINGS).exists()


def test_start_is_refused_once_the_attempt_has_used_its_pass_budget(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    answer = answer_file(tmp_path, NOT_READY)
    for number in (1, 2):
        started = start(ws)
        assert (started.number, started.request_id.split("-")[-2]) == (number, f"p{number}")
        assert submit_review(ws, UNIT, started.request_id, answer).passes_used == number
    with pytest.raises(InvalidInput) as refused:
        start(ws)
    assert str(refused.value) == (
        f"{FINDINGS}: attempt 1 has used its 2 pass(es); decide at the gate (`review gate`)"
    )
