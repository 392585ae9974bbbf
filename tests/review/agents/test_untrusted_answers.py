"""A reviewer's answer is untrusted: every bad answer is recorded as reviewer unavailable."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from aidlc_review.review.agents.answer import validate_answer
from tests.review.workspace import CLEAN, findings_doc, make_workspace, review_args, script_agent

FINDING = {
    "severity": "major",
    "category": "correctness",
    "path": "src/orders/app.py",
    "location": "4",
    "finding": "f",
    "evidence": "e",
    "recommendation": "r",
}


def _answer(**changes):
    finding = {**FINDING, **changes.pop("finding", {})}
    return json.dumps({"verdict": "NOT-READY", "summary": "s", "findings": [finding], **changes})


BAD_ANSWERS = {
    "not JSON": (
        "print('looks fine to me')",
        "answer is not JSON: Expecting value: line 1 column 1 (char 0)",
    ),
    "unknown severity": (
        f"print({_answer(finding={'severity': 'blocker'})!r})",
        '$.findings[0].severity: must be one of critical, major, minor; got "blocker"',
    ),
    "unclaimed path": (
        f"print({_answer(finding={'path': 'src/elsewhere.py'})!r})",
        "$.findings[0].path: 'src/elsewhere.py' is not a path the unit claims",
    ),
    "NOT-READY without a finding": (
        f"print({_answer(findings=[])!r})",
        "$.verdict: NOT-READY needs at least one critical or major finding",
    ),
    "READY over a major finding": (
        f"print({_answer(verdict='READY')!r})",
        "$.verdict: READY contradicts an open critical or major finding",
    ),
    "unknown key": (f"print({_answer(score=3)!r})", "$.score: unknown key"),
    "non-zero exit": ("import sys; sys.exit(3)", "agent exited with status 3"),
    "edits the source": (
        "open('src/orders/app.py', 'a').write('# reviewed')",
        "the reviewer changed the claimed source (reviewers never edit)",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_ANSWERS))
def test_a_bad_answer_is_recorded_as_reviewer_unavailable_and_never_ready(tmp_path, capsys, case):
    body, reason = BAD_ANSWERS[case]
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": CLEAN})
    reviewer = script_agent(
        tmp_path / "reviewer.py", "import sys; sys.stdin.read()\n" + body + "\n"
    )
    assert main(review_args(ws, "--reviewer", reviewer)) == 1
    last = findings_doc(ws)["passes"][-1]
    recorded = dict(last["reviewer"])
    usage = recorded.pop("usage")
    assert recorded == {
        "agent": Path(sys.executable).name,  # the executable, never the command line
        "status": "unavailable",
        "reason": reason,
        "summary": None,
        "verdict": None,
    }
    # its time is recorded; a script in no CLI's envelope reports no tokens
    assert usage["turns"] in (1, 2) and usage["seconds"] > 0 and usage["input_tokens"] is None
    assert [(f["source"], f["severity"], f["finding"]) for f in last["findings"]] == [
        ("runtime", "major", f"reviewer unavailable: {reason}")
    ]
    assert last["verdict"] == "NOT-READY"


def test_a_reviewer_that_never_answers_is_killed_with_its_children(tmp_path, capsys):
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": CLEAN})
    marker = tmp_path / "child-survived"
    reviewer = script_agent(
        tmp_path / "slow.py",
        f"""
        import subprocess, sys, time
        subprocess.Popen([sys.executable, "-c",
                          "import time; time.sleep(2); open({str(marker)!r}, 'w')"])
        time.sleep(60)
    """,
    )
    started = time.monotonic()
    assert main(review_args(ws, "--reviewer", reviewer, "--agent-timeout", "1")) == 1
    assert time.monotonic() - started < 30
    reviewer_record = findings_doc(ws)["passes"][0]["reviewer"]
    assert reviewer_record["reason"] == "no answer before the agent timeout"
    time.sleep(2.5)
    assert not marker.exists()


def test_a_good_answer_is_accepted_with_its_location():
    checked = validate_answer(_answer(), ["src/orders/app.py"])
    assert checked.reason is None and checked.answer is not None
    assert checked.answer.findings[0].location == "4"


def test_an_empty_or_oversized_answer_is_rejected():
    assert validate_answer(b"  \n", ["a"]).reason == "empty answer"
    assert validate_answer(b"x" * (1 << 21), ["a"]).reason == "answer is larger than 1048576 bytes"


def test_after_reviewer_unavailable_a_working_reviewer_gets_a_new_pass(tmp_path, capsys):
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": CLEAN})
    broken = script_agent(tmp_path / "broken.py", "import sys; sys.exit(3)\n")
    assert main(review_args(ws, "--reviewer", broken)) == 1
    working = script_agent(
        tmp_path / "working.py",
        """
        import json
        print(json.dumps({"verdict": "READY", "summary": "Fine.", "findings": []}))
        """,
    )
    assert main(review_args(ws, "--reviewer", working)) == 0
    doc = findings_doc(ws)
    assert [(p["pass"], p["reviewer"]["status"], p["verdict"]) for p in doc["passes"]] == [
        (1, "unavailable", "NOT-READY"),
        (2, "answered", "READY"),
    ]


def test_an_unavailable_reviewer_is_retried_only_while_passes_are_left(tmp_path, capsys):
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": CLEAN})
    broken = script_agent(tmp_path / "broken.py", "import sys; sys.exit(3)\n")
    for _ in range(3):
        assert main(review_args(ws, "--reviewer", broken)) == 1
    doc = findings_doc(ws)
    assert [(p["pass"], p["reviewer"]["status"]) for p in doc["passes"]] == [
        (1, "unavailable"),
        (2, "unavailable"),
    ]
    assert "unchanged since pass 2 of attempt 1: NOT-READY" in capsys.readouterr().err
