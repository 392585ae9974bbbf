"""Where the answer handling meets the rest: every answer check earns the one retry, the host
path reads the same shapes as the agents' stdout, and a repairer's envelope can say it failed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from tests.review.agents.test_envelope import FENCED, claude_envelope, codex_stream
from tests.review.workspace import (
    CLEAN,
    FAKE_KEY,
    LINT_ERROR,
    UNIT,
    findings_doc,
    make_workspace,
    review_args,
    script_agent,
)

APP = "src/orders/app.py"  # CLEAN: 5 lines
BRIEFS = Path("aidlc-docs/.aidlc-engine/code-review") / UNIT / "briefs"
FINDING = {
    "severity": "major",
    "category": "correctness",
    "path": APP,
    "location": "4",
    "finding": "total() accepts negative prices",
    "evidence": "`return sum(prices)` runs with no check before it",
    "recommendation": "Reject negative prices with ValueError.",
}
# A scripted reviewer: answers[i] is its i-th answer (the last one repeats); logs each call.
REVIEWER = """
import json, os, pathlib, sys

sys.stdin.read()
log = pathlib.Path(%(log)r)
calls = len(log.read_text().splitlines()) if log.exists() else 0
with log.open("a") as out:
    out.write(pathlib.Path(os.environ["AIDLC_BRIEF"]).name + "\\n")
answers = %(answers)r
print(json.dumps(answers[min(calls, len(answers) - 1)]))
"""


def _reviewer(tmp_path: Path, *answers: dict) -> str:
    log = tmp_path / "reviewer-calls.txt"
    body = REVIEWER % {"log": str(log), "answers": list(answers)}
    return script_agent(tmp_path / "reviewer.py", body)


def _calls(tmp_path: Path) -> list[str]:
    return (tmp_path / "reviewer-calls.txt").read_text().splitlines()


def _not_ready(**changes: object) -> dict:
    return {"verdict": "NOT-READY", "summary": "s", "findings": [{**FINDING, **changes}]}


def test_a_location_past_the_end_of_the_file_is_asked_for_again_within_the_pass(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = make_workspace(tmp_path / "ws", {APP: CLEAN})
    reviewer = _reviewer(tmp_path, _not_ready(location="90"), _not_ready(location="4"))

    assert main(review_args(ws, "--reviewer", reviewer)) == 1

    (only,) = findings_doc(ws)["passes"]
    assert only["reviewer"]["status"] == "answered"
    assert [f["location"] for f in only["findings"] if f["source"] == "reviewer"] == ["4"]
    assert _calls(tmp_path) == ["reviewer-attempt1-pass1.md", "reviewer-attempt1-pass1-retry.md"]
    retry = (ws / BRIEFS / "reviewer-attempt1-pass1-retry.md").read_text()
    assert f"> $.findings[0].location: line 90 is past the end of {APP} (5 lines)\n" in retry


def test_an_unknown_finding_id_twice_is_reviewer_unavailable_after_one_retry_in_one_pass(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = make_workspace(tmp_path / "ws", {APP: CLEAN})
    reviewer = _reviewer(tmp_path, _not_ready(id="CR-042"))

    assert main(review_args(ws, "--reviewer", reviewer)) == 1

    doc = findings_doc(ws)
    assert len(doc["passes"]) == 1
    assert (doc["passes"][0]["reviewer"]["status"], doc["passes"][0]["reviewer"]["reason"]) == (
        "unavailable",
        "$.findings[0].id: CR-042 is not an earlier reviewer finding of this unit",
    )
    assert len(_calls(tmp_path)) == 2
    retry = (ws / BRIEFS / "reviewer-attempt1-pass1-retry.md").read_text()
    assert "> $.findings[0].id: CR-042 is not an earlier reviewer finding of this unit\n" in retry


def test_an_earlier_finding_restated_by_its_id_is_accepted_without_a_retry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = make_workspace(tmp_path / "ws", {APP: CLEAN})
    first = _reviewer(tmp_path, _not_ready())
    assert main(review_args(ws, "--reviewer", first)) == 1
    (tmp_path / "reviewer-calls.txt").unlink()
    (ws / APP).write_text(CLEAN + "\n\nLIMIT = 3\n")  # new bytes: a new pass

    again = _reviewer(tmp_path, _not_ready(id="CR-001", finding="still accepts negatives"))
    assert main(review_args(ws, "--reviewer", again)) == 1

    second = findings_doc(ws)["passes"][1]
    assert second["reviewer"]["status"] == "answered"
    assert [f["id"] for f in second["findings"] if f["source"] == "reviewer"] == ["CR-001"]
    assert _calls(tmp_path) == ["reviewer-attempt1-pass2.md"]


# --- the host path reads the same shapes ---

ANSWER = _not_ready()


def _start(ws: Path, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main(["review", "start", "--workspace", str(ws), "--unit", UNIT, "--json"]) == 0
    return json.loads(capsys.readouterr().out)["request"]


def _submit(ws: Path, request: str, answer: Path) -> int:
    argv = ["review", "submit", "--workspace", str(ws), "--unit", UNIT]
    return main([*argv, "--request", request, "--answer", str(answer)])


@pytest.mark.parametrize(
    "shape",
    [
        FENCED.replace('"READY"', '"NOT-READY"', 1),
        claude_envelope(json.dumps(ANSWER)),
        codex_stream("Reading the unit.", f"```json\n{json.dumps(ANSWER)}\n```"),
        # Claude Code with "verbose": true in its settings: the messages, the result last
        json.dumps(
            [
                {"type": "system", "subtype": "init", "session_id": "s", "tools": ["Read"]},
                json.loads(claude_envelope(json.dumps(ANSWER))),
            ]
        ),
    ],
    ids=["fenced", "claude", "codex", "claude-verbose"],
)
def test_a_host_answer_in_any_shape_an_agent_prints_is_accepted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], shape: str
) -> None:
    ws = make_workspace(tmp_path / "ws", {APP: CLEAN})
    request = _start(ws, capsys)
    answer = tmp_path / "answer.txt"
    answer.write_text(shape.replace('"findings": []', f'"findings": [{json.dumps(FINDING)}]'))

    assert _submit(ws, request, answer) == 1

    (only,) = findings_doc(ws)["passes"]
    assert (only["reviewer"]["agent"], only["reviewer"]["status"]) == ("host", "answered")
    assert [f["finding"] for f in only["findings"] if f["source"] == "reviewer"] == [
        FINDING["finding"]
    ]


@pytest.mark.parametrize(
    ("shape", "message"),
    [
        (FENCED + FENCED, "answer holds 2 fenced json blocks, not one"),
        (
            claude_envelope("", is_error=True, subtype="error_max_turns"),
            "the Claude Code run reported an error (error_max_turns)",
        ),
        (codex_stream(failed="usage limit"), "the Codex run failed: usage limit"),
        ("looks fine to me\n", "answer is not JSON: Expecting value: line 1 column 1 (char 0)"),
    ],
    ids=["two-fences", "claude-error", "codex-failed", "prose"],
)
def test_a_host_answer_in_no_known_shape_is_bad_input_naming_the_file_and_nothing_is_recorded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], shape: str, message: str
) -> None:
    ws = make_workspace(tmp_path / "ws", {APP: CLEAN})
    request = _start(ws, capsys)
    answer = tmp_path / "answer.txt"
    answer.write_text(shape)

    assert _submit(ws, request, answer) == 2
    assert capsys.readouterr().err == f"{answer}: {message}\n"
    assert not (ws / f"aidlc-docs/construction/{UNIT}/code-review").exists()

    answer.write_text(json.dumps(ANSWER))  # the request still stands
    assert _submit(ws, request, answer) == 1


# --- a repairer's envelope can report a failure with exit status 0 ---

REPAIRER = """
import sys

sys.stdin.read()
print(%(stdout)r)
"""


@pytest.mark.parametrize(
    ("stdout", "reason"),
    [
        (
            claude_envelope(f"API Error: 401 invalid key {FAKE_KEY}", is_error=True),
            "the Claude Code run reported an error (is_error): API Error: 401 invalid key "
            "[redacted: AWS Access Key",
        ),
        (
            claude_envelope("", subtype="error_max_turns"),
            "the Claude Code run reported an error (error_max_turns)",
        ),
        (
            codex_stream("Fixing it.", failed=f"stream error: token {FAKE_KEY} refused"),
            "the Codex run failed: stream error: token [redacted: AWS Access Key",
        ),
    ],
    ids=["claude-is-error", "claude-subtype", "codex-turn-failed"],
)
def test_a_repairer_whose_envelope_reports_an_error_is_a_failed_repair(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], stdout: str, reason: str
) -> None:
    ws = make_workspace(tmp_path / "ws", {"src/orders/bad.py": LINT_ERROR})
    repairer = script_agent(tmp_path / "repairer.py", REPAIRER % {"stdout": stdout})

    assert main(review_args(ws, "--repairer", repairer)) == 1

    first = findings_doc(ws)["passes"][0]
    assert first["repair"]["status"] == "failed"
    assert first["repair"]["reason"].startswith(reason)
    everything = json.dumps(findings_doc(ws)) + capsys.readouterr().err
    assert FAKE_KEY not in everything
