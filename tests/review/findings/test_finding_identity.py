"""A finding keeps its ID: reworded, restated by ID, or simply not repeated by the reviewer.

The ledger is exercised directly with the reviewer's answers as the runtime reads
them, and once end to end through ``review start`` / ``review submit``.
"""

from __future__ import annotations

import json

from aidlc_review.cli.main import main
from aidlc_review.review.agents.answer import validate_answer
from aidlc_review.review.findings.ledger import merge, resolutions, reviewer_observations
from aidlc_review.review.findings.matching import SIMILARITY, similarity
from aidlc_review.review.record.models import ReviewerAnswer
from tests.review.workspace import UNIT, make_workspace, report_text

PATH = "src/app.py"


def _answer(*findings: dict, resolved: list[dict] | None = None) -> ReviewerAnswer:
    blocking = any(f.get("severity", "major") != "minor" for f in findings)
    return ReviewerAnswer.model_validate(
        {
            "verdict": "NOT-READY" if blocking else "READY",
            "summary": "s",
            "findings": [_finding(**f) for f in findings],
            "resolved": resolved or [],
        }
    )


def _finding(text: str, severity: str = "major", path: str = PATH, **extra: str) -> dict:
    return {
        "severity": severity,
        "category": "maintainability",
        "path": path,
        "finding": text,
        "evidence": "e",
        "recommendation": "r",
        **extra,
    }


def _pass(history, answer: ReviewerAnswer, number: int):
    return merge(history, reviewer_observations(answer), 1, number, resolved=resolutions(answer))


def test_a_reworded_finding_keeps_its_id_and_its_first_fingerprint():
    first = _pass([], _answer({"text": "Unused import os"}), 1)
    second = _pass(first, _answer({"text": "Still: unused import `os` (line 3)"}), 2)
    assert [(f.id, f.status, f.finding) for f in second] == [
        ("CR-001", "open", "Still: unused import `os` (line 3)")
    ]
    assert second[0].fingerprint == first[0].fingerprint
    assert second[0].first_seen == 1 and not second[0].not_re_examined


def test_the_similarity_rule_ignores_case_numbers_quotes_and_has_a_threshold():
    assert SIMILARITY == 0.8
    assert similarity("Unused import os", "Still: unused import `os`") >= SIMILARITY
    assert similarity("Off by one at line 12", "OFF BY ONE AT LINE 40") == 1.0
    assert similarity("`total` is never read", "`count` is never read") >= SIMILARITY
    assert similarity("SQL built from user input", "mean() divides by zero") < SIMILARITY


def test_two_different_findings_in_one_file_never_share_an_id():
    first = _pass([], _answer({"text": "Variable `a` is unused"}), 1)
    both = _answer({"text": "Variable `a` is unused"}, {"text": "Variable `b` is unused"})
    second = _pass(first, both, 2)
    assert [(f.id, f.finding) for f in second] == [
        ("CR-001", "Variable `a` is unused"),
        ("CR-002", "Variable `b` is unused"),
    ]


def test_restating_by_id_keeps_the_id_whatever_the_new_words():
    first = _pass([], _answer({"text": "total() accepts negative prices"}), 1)
    restated = _answer({"text": "Prices below zero still sum up", "id": "CR-001"})
    second = _pass(first, restated, 2)
    assert [(f.id, f.status, f.finding) for f in second] == [
        ("CR-001", "open", "Prices below zero still sum up")
    ]


def test_a_finding_the_reviewer_does_not_account_for_stays_open_and_is_marked():
    first = _pass([], _answer({"text": "total() accepts negative prices"}), 1)
    second = _pass(first, _answer(), 2)
    assert [(f.id, f.status, f.not_re_examined) for f in second] == [("CR-001", "open", True)]
    third = _pass(second, _answer({"text": "total() accepts negative prices"}), 3)
    assert [(f.status, f.not_re_examined) for f in third] == [("open", False)]


def test_a_finding_is_resolved_only_by_the_reviewer_saying_so_with_a_reason():
    first = _pass([], _answer({"text": "total() accepts negative prices"}), 1)
    fixed = _answer(resolved=[{"id": "CR-001", "reason": "prices are clamped at 0"}])
    second = _pass(first, fixed, 2)
    assert [(f.status, f.resolution, f.not_re_examined) for f in second] == [
        ("resolved", "prices are clamped at 0", False)
    ]


def test_an_unknown_or_doubled_id_in_the_answer_is_rejected_naming_its_place():
    def reason(data: dict) -> str | None:
        return validate_answer(json.dumps(data), [PATH], known={"CR-001"}).reason

    base = {"verdict": "NOT-READY", "summary": "s"}
    unknown = {**base, "findings": [_finding("x"), _finding("y", id="CR-007")]}
    assert reason(unknown) == (
        "$.findings[1].id: CR-007 is not an earlier reviewer finding of this unit"
    )
    twice = {**base, "findings": [_finding("x", id="CR-001"), _finding("y", id="CR-001")]}
    assert reason(twice) == "$.findings[1].id: CR-001 is already restated at $.findings[0]"
    both = {
        **base,
        "findings": [_finding("x", id="CR-001")],
        "resolved": [{"id": "CR-001", "reason": "fixed"}],
    }
    assert reason(both) == (
        "$.resolved[0].id: CR-001 is restated as still present at $.findings[0]"
    )
    gone = {"verdict": "READY", "summary": "s", "findings": [], "resolved": [{"id": "CR-002"}]}
    assert reason(gone) == "$.resolved[0].reason: is required"


def test_a_reviewer_location_past_the_end_of_the_frozen_file_is_rejected():
    def reason(location: str) -> str | None:
        data = {"verdict": "NOT-READY", "summary": "s", "findings": [_finding("x")]}
        data["findings"][0]["location"] = location
        return validate_answer(json.dumps(data), [PATH], lines={PATH: 5}).reason

    assert reason("5") is None and reason("2-5") is None
    assert reason("6") == "$.findings[0].location: line 6 is past the end of src/app.py (5 lines)"
    assert reason("4-9") == (
        "$.findings[0].location: line 4-9 is past the end of src/app.py (5 lines)"
    )


def _submit(ws, tmp_path, capsys, answer: dict) -> int:
    assert main(["review", "start", "--workspace", str(ws), "--unit", UNIT, "--json"]) == 0
    request = json.loads(capsys.readouterr().out)["request"]
    path = tmp_path / "answer.json"
    path.write_text(json.dumps(answer))
    argv = ["review", "submit", "--workspace", str(ws), "--unit", UNIT, "--json"]
    code = main([*argv, "--request", request, "--answer", str(path), "--by", "lead@example.com"])
    capsys.readouterr()
    return code


def test_end_to_end_a_silent_reviewer_leaves_the_finding_open_and_says_so(tmp_path, capsys):
    source = "def total(prices: list[int]) -> int:\n    return sum(prices)\n"
    ws = make_workspace(tmp_path / "ws", {PATH: source})
    located = {
        **_finding("total() accepts negative prices"),
        "location": "2",
        "evidence": "`return sum(prices)`",
    }
    assert (
        _submit(
            ws, tmp_path, capsys, {"verdict": "NOT-READY", "summary": "s", "findings": [located]}
        )
        == 1
    )
    assert _submit(ws, tmp_path, capsys, {"verdict": "READY", "summary": "ok", "findings": []}) == 1
    doc = json.loads(
        (ws / f"aidlc-docs/construction/{UNIT}/code-review/code-review-findings.json").read_text()
    )
    [kept] = doc["passes"][1]["findings"]
    assert (kept["id"], kept["status"], kept["not_re_examined"]) == ("CR-001", "open", True)
    assert doc["passes"][1]["by"] == "lead@example.com"
    assert "- Not re-examined: the last reviewer neither restated nor resolved it" in (
        report_text(ws)
    )
    gate = ["review", "gate", "--workspace", str(ws), "--unit", UNIT, "--request-changes"]
    assert main(gate) == 0
    capsys.readouterr()
    past_end = {**located, "location": "3"}
    assert (
        _submit(
            ws, tmp_path, capsys, {"verdict": "NOT-READY", "summary": "s", "findings": [past_end]}
        )
        == 1
    )
    doc = json.loads(
        (ws / f"aidlc-docs/construction/{UNIT}/code-review/code-review-findings.json").read_text()
    )
    assert doc["passes"][2]["reviewer"]["reason"] == (
        "$.findings[0].location: line 3 is past the end of src/app.py (2 lines)"
    )
