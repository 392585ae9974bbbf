"""``review.agents.ask``: one retry, in the same pass, for an answer that arrives malformed."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import pytest

from aidlc_review.review.agents.adapters import parse_agent
from aidlc_review.review.agents.answer import AnswerCheck
from aidlc_review.review.agents.ask import (
    Asking,
    ask_command_reviewer,
    retry_brief,
    retry_brief_path,
)
from aidlc_review.review.agents.brief import write_brief
from aidlc_review.review.inputs.paths import RecordPaths
from aidlc_review.review.inputs.unit import UnitContext
from aidlc_review.review.record.models import ReviewerAnswer
from aidlc_review.review.run import engine
from tests.review.workspace import CLEAN, FAKE_KEY, UNIT, make_workspace, script_agent

APP = "src/orders/app.py"  # CLEAN: 5 lines
BRIEF = "# Review unit u1-orders\n\nAnswer with JSON.\n"
FINDING = {
    "severity": "major",
    "category": "correctness",
    "path": APP,
    "location": "4",
    "finding": "total() accepts negative prices",
    "evidence": "`return sum(prices)` runs with no check before it",
    "recommendation": "Reject negative prices.",
}
GOOD = {"verdict": "NOT-READY", "summary": "One bug.", "findings": [FINDING]}
# A scripted reviewer: turn i does turns[i] (the last one repeats) and logs what it was given.
REVIEWER = """
import json, os, pathlib, sys, time

brief = sys.stdin.read()
log = pathlib.Path(%(log)r)
calls = len(log.read_text().splitlines()) if log.exists() else 0
seen = {"brief": os.environ["AIDLC_BRIEF"], "role": os.environ["AIDLC_ROLE"],
        "pass": os.environ["AIDLC_PASS"], "stdin": brief, "cwd": os.getcwd()}
with log.open("a") as out:
    out.write(json.dumps(seen) + "\\n")
turn = %(turns)r[min(calls, %(count)d - 1)]
if turn.get("edit"):
    with open(%(app)r, "a") as source:
        source.write("# reviewed\\n")
time.sleep(turn.get("sleep", 0))
sys.stdout.write(turn.get("stdout", ""))
sys.exit(turn.get("exit", 0))
"""


@dataclasses.dataclass
class Setup:
    tmp: Path
    ws: Path
    ctx: UnitContext
    gathered: engine.Gathered
    brief: Path
    said: list[str]

    def ask(self, *turns: dict, timeout: float = 30.0) -> AnswerCheck:
        log = self.tmp / "calls.jsonl"
        body = REVIEWER % {"log": str(log), "turns": list(turns), "count": len(turns), "app": APP}
        command = script_agent(self.tmp / "reviewer.py", body)
        spec = parse_agent(command, "--reviewer", ("builtin",))
        doc = engine.new_document(UNIT)
        asking = Asking(
            self.ctx, doc, spec, self.gathered, self.brief, 1, timeout, self.said.append
        )
        return ask_command_reviewer(asking)

    def calls(self) -> list[dict]:
        log = self.tmp / "calls.jsonl"
        return [json.loads(line) for line in log.read_text().splitlines()]

    def progress(self) -> list[str]:
        prefix = f"reviewer command:{sys.executable} {self.tmp / 'reviewer.py'}: "
        assert all(line.startswith(prefix) for line in self.said), self.said
        return [line.removeprefix(prefix) for line in self.said]


@pytest.fixture
def setup(tmp_path: Path) -> Setup:
    ws = make_workspace(tmp_path / "ws", {APP: CLEAN})
    paths = RecordPaths.resolve(ws, UNIT)
    # no sensors: what is asked here does not depend on them
    ctx = dataclasses.replace(UnitContext.load(paths, None, "gated"), sensors=[])
    gathered = engine.gather(ctx, lambda _: None)
    brief = write_brief(paths.brief("reviewer", 1, 1), BRIEF)
    return Setup(tmp_path, ws, ctx, gathered, brief, [])


def _out(answer: dict) -> dict:
    return {"stdout": json.dumps(answer)}


def test_the_retry_brief_sits_beside_the_brief_with_retry_in_its_name(tmp_path):
    brief = tmp_path / "briefs" / "reviewer-attempt2-pass1.md"

    assert retry_brief_path(brief) == tmp_path / "briefs" / "reviewer-attempt2-pass1-retry.md"
    assert retry_brief_path(tmp_path / "brief") == tmp_path / "brief-retry"


def test_the_retry_brief_is_the_original_then_the_error_quoted_line_by_line():
    text = retry_brief("# Brief\n\nAnswer.\n\n\n", "first line\nsecond line")

    assert text == (
        "# Brief\n\nAnswer.\n\n"
        "## Your previous answer was rejected\n\n"
        "It could not be read as an answer:\n\n"
        "> first line\n> second line\n\n"
        "Answer again, following the format above exactly. This is the last chance in this "
        "pass: a second unreadable answer is recorded as *reviewer unavailable*.\n"
    )


def test_an_empty_reason_is_still_quoted_as_one_line():
    assert "answer:\n\n> \n\nAnswer again" in retry_brief("# Brief", "")


def test_a_readable_answer_is_taken_at_once_and_no_retry_brief_is_written(setup):
    check = setup.ask(_out(GOOD))

    assert (check.answer, check.reason) == (ReviewerAnswer.model_validate(GOOD), None)
    (call,) = setup.calls()
    assert call == {
        "brief": str(setup.brief),
        "role": "reviewer",
        "pass": "1",
        "stdin": BRIEF,
        "cwd": str(setup.ws),
    }
    assert not retry_brief_path(setup.brief).exists()
    assert setup.progress() == ["reviewing (timeout 30s)"]


MALFORMED = {
    "not JSON": (
        {"stdout": "Looks fine to me."},
        "answer is not JSON: Expecting value: line 1 column 1 (char 0)",
    ),
    "a line past the end": (
        _out({**GOOD, "findings": [{**FINDING, "location": "90"}]}),
        f"$.findings[0].location: line 90 is past the end of {APP} (5 lines)",
    ),
    "an unknown finding ID": (
        _out({**GOOD, "findings": [{**FINDING, "id": "CR-042"}]}),
        "$.findings[0].id: CR-042 is not an earlier reviewer finding of this unit",
    ),
    "two fenced blocks": (
        {"stdout": f"```json\n{json.dumps(GOOD)}\n```\n\n```json\n{{}}\n```\n"},
        "answer holds 2 fenced json blocks, not one",
    ),
    "two fenced blocks in Claude's result": (
        {
            "stdout": json.dumps(
                {
                    "type": "result",
                    "subtype": "success",
                    "is_error": False,
                    "result": f"```json\n{json.dumps(GOOD)}\n```\n\n```json\n{{}}\n```\n",
                }
            )
        },
        "answer holds 2 fenced json blocks, not one",
    ),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_a_malformed_answer_is_asked_for_once_more_with_its_error_quoted(setup, case):
    turn, reason = MALFORMED[case]

    check = setup.ask(turn, _out(GOOD))

    assert (check.answer, check.reason) == (ReviewerAnswer.model_validate(GOOD), None)
    retry = retry_brief_path(setup.brief)
    assert [c["brief"] for c in setup.calls()] == [str(setup.brief), str(retry)]
    assert setup.calls()[1]["stdin"] == retry.read_text() == retry_brief(BRIEF, reason)
    assert setup.progress() == [
        "reviewing (timeout 30s)",
        f"answer rejected: {reason}; asking once more (same pass)",
        "reviewing (timeout 30s)",
    ]


def test_a_second_malformed_answer_is_the_rejection_and_there_is_no_third_try(setup):
    check = setup.ask({"stdout": "Looks fine."}, {"stdout": "[1, 2"})

    assert check.answer is None
    assert check.reason == "answer is not JSON: Expecting ',' delimiter: line 1 column 6 (char 5)"
    assert len(setup.calls()) == 2


def test_a_secret_the_rejected_answer_quoted_never_reaches_the_retry_brief(setup):
    leaky = _out({**GOOD, "findings": [{**FINDING, "severity": FAKE_KEY}]})

    setup.ask(leaky, _out(GOOD))

    retry = retry_brief_path(setup.brief).read_text()
    assert "> $.findings[0].severity: must be one of critical, major, minor; got" in retry
    assert "[redacted: AWS Access Key " in retry
    assert FAKE_KEY not in retry
    assert not [line for line in setup.said if FAKE_KEY in line]


NOT_RETRIED = {
    "a non-zero exit": ({**_out(GOOD), "exit": 3}, "agent exited with status 3"),
    "an edit to the claimed source": (
        {**_out(GOOD), "edit": True},
        "the reviewer changed the claimed source (reviewers never edit)",
    ),
    "an edit and a non-zero exit": (
        {**_out(GOOD), "edit": True, "exit": 3},
        "the reviewer changed the claimed source (reviewers never edit)",
    ),
    "an envelope reporting an error": (
        {"stdout": json.dumps({"type": "result", "is_error": True, "result": "quota"})},
        "the Claude Code run reported an error (is_error): quota",
    ),
}


@pytest.mark.parametrize("case", sorted(NOT_RETRIED))
def test_a_run_that_fails_outright_is_not_retried(setup, case):
    turn, reason = NOT_RETRIED[case]

    check = setup.ask(turn, _out(GOOD))

    assert (check.answer, check.reason) == (None, reason)
    assert len(setup.calls()) == 1
    assert not retry_brief_path(setup.brief).exists()


def test_a_reviewer_past_its_timeout_is_not_retried(setup):
    check = setup.ask({**_out(GOOD), "sleep": 30}, _out(GOOD), timeout=0.5)

    assert (check.answer, check.reason) == (None, "no answer before the agent timeout")
    assert len(setup.calls()) == 1
    assert setup.progress() == ["reviewing (timeout 0.5s)"]
