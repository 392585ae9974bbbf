"""Where the answer sits in an agent's stdout: bare, fenced, or in an agent CLI's envelope."""

from __future__ import annotations

import json

from aidlc_review.review.agents.answer import validate_answer
from aidlc_review.review.agents.envelope import (
    MAX_STDOUT_BYTES,
    environment_failure,
    hopeless,
    reported_failure,
    unwrap,
)

ANSWER = {"verdict": "READY", "summary": "Looks fine.", "findings": []}
ANSWER_TEXT = json.dumps(ANSWER)
FENCED = f"Here is my review.\n\n```json\n{json.dumps(ANSWER, indent=2)}\n```\n\nThanks!\n"


def claude_envelope(result: str, *, is_error: bool = False, subtype: str = "success") -> str:
    """What ``claude -p --output-format json`` prints: one result object."""
    return json.dumps(
        {
            "type": "result",
            "subtype": subtype,
            "is_error": is_error,
            "duration_ms": 5120,
            "duration_api_ms": 4870,
            "num_turns": 3,
            "result": result,
            "session_id": "5f1c0e7a-8d2b-4a53-9a0e-1b2c3d4e5f60",
            "total_cost_usd": 0.0421,
            "usage": {"input_tokens": 1830, "output_tokens": 412},
        }
    )


def codex_stream(*messages: str, failed: str | None = None) -> str:
    """What ``codex exec --json`` prints: JSONL events, agent messages as completed items."""
    events: list[dict[str, object]] = [
        {"type": "thread.started", "thread_id": "0199a213-81c0-7800-8aa1-bbab2a035a53"},
        {"type": "turn.started"},
        {
            "type": "item.completed",
            "item": {"id": "item_0", "type": "reasoning", "text": "Reading"},
        },
        {
            "type": "item.completed",
            "item": {
                "id": "item_1",
                "type": "command_execution",
                "command": "bash -lc 'cat src/orders/app.py'",
                "aggregated_output": "def total(): ...",
                "exit_code": 0,
                "status": "completed",
            },
        },
    ]
    for index, text in enumerate(messages, start=2):
        events.append(
            {
                "type": "item.completed",
                "item": {"id": f"item_{index}", "type": "agent_message", "text": text},
            }
        )
    if failed is not None:
        events.append({"type": "turn.failed", "error": {"message": failed}})
    else:
        events.append(
            {"type": "turn.completed", "usage": {"input_tokens": 24763, "output_tokens": 122}}
        )
    return "\n".join(json.dumps(e) for e in events) + "\n"


def _accepted(stdout: str) -> dict[str, object]:
    found = unwrap(stdout.encode())
    assert found.error is None
    checked = validate_answer(found.text, ["src/orders/app.py"])
    assert checked.reason is None and checked.answer is not None
    return {"form": found.form, "verdict": checked.answer.verdict}


def test_bare_json_is_the_answer():
    assert _accepted(ANSWER_TEXT + "\n") == {"form": "json", "verdict": "READY"}


def test_one_fenced_json_block_with_prose_around_it_is_the_answer():
    assert _accepted(FENCED) == {"form": "fenced", "verdict": "READY"}


def test_two_fenced_blocks_are_not_an_answer():
    found = unwrap((FENCED + FENCED).encode())
    assert (found.text, found.error) == (None, "answer holds 2 fenced json blocks, not one")


def test_claude_code_result_envelope_holding_bare_or_fenced_json_is_accepted():
    assert _accepted(claude_envelope(ANSWER_TEXT)) == {"form": "claude", "verdict": "READY"}
    assert _accepted(claude_envelope(FENCED)) == {"form": "claude", "verdict": "READY"}


def test_claude_code_stream_json_takes_the_final_result_line():
    stream = "\n".join(
        [
            json.dumps({"type": "system", "subtype": "init", "session_id": "s", "tools": []}),
            json.dumps({"type": "assistant", "message": {"content": [{"type": "text"}]}}),
            claude_envelope(FENCED),
        ]
    )
    assert _accepted(stream) == {"form": "claude", "verdict": "READY"}


def test_a_claude_code_run_that_reports_an_error_is_that_error():
    found = unwrap(claude_envelope("", is_error=True, subtype="error_max_turns").encode())
    assert (found.text, found.error) == (
        None,
        "the Claude Code run reported an error (error_max_turns)",
    )


def test_codex_exec_json_takes_the_last_agent_message():
    stream = codex_stream("Let me read the files first.", FENCED)
    assert _accepted(stream) == {"form": "codex", "verdict": "READY"}


def test_a_failed_codex_turn_is_that_failure():
    found = unwrap(codex_stream(failed="You've hit your usage limit.").encode())
    assert found.error == "the Codex run failed: You've hit your usage limit."


def test_anything_else_is_left_as_it_is_and_rejected_by_validation():
    for garbage in ("looks fine to me", "```python\nprint(1)\n```", '{"type": "result"'):
        found = unwrap(garbage.encode())
        assert (found.form, found.error) == ("raw", None)
        assert validate_answer(found.text, ["a"]).reason is not None


def test_output_beyond_the_bound_is_refused_unread():
    found = unwrap(b" " * (MAX_STDOUT_BYTES + 1))
    assert found.error == f"agent output is larger than {MAX_STDOUT_BYTES} bytes"


def _event(kind: str, message: str) -> str:
    return json.dumps({"type": kind, "message": message})


def test_claude_code_verbose_json_array_takes_its_final_result():
    # ``"verbose": true`` in Claude Code's settings: every message, the result last
    verbose = [
        {"type": "system", "subtype": "init", "session_id": "s", "tools": ["Read"]},
        {"type": "assistant", "message": {"content": [{"type": "text", "text": "Reading"}]}},
        json.loads(claude_envelope(FENCED)),
    ]
    assert _accepted(json.dumps(verbose)) == {"form": "claude", "verdict": "READY"}
    failed = [verbose[0], json.loads(claude_envelope("Not logged in", is_error=True))]
    assert reported_failure(json.dumps(failed).encode()) == (
        "the Claude Code run reported an error (is_error): Not logged in"
    )


def test_a_codex_reconnect_notice_followed_by_a_completed_turn_is_no_failure():
    reconnect = _event("error", "Reconnecting... 1/5 (unexpected status 401 Unauthorized)")
    lines = codex_stream("Guarded mean().").splitlines()
    stream = "\n".join([*lines[:2], reconnect, *lines[2:]]) + "\n"
    assert reported_failure(stream.encode()) is None
    assert _accepted(codex_stream(FENCED).replace("\n", f"\n{reconnect}\n", 1))["form"] == "codex"


def test_a_codex_error_with_no_turn_ending_after_it_is_a_failure():
    lines = codex_stream("Working.").splitlines()[:-1]  # no turn.completed
    stream = "\n".join([*lines, _event("error", "stream disconnected")]) + "\n"
    assert reported_failure(stream.encode()) == "the Codex run failed: stream disconnected"


def test_a_cli_that_cannot_work_here_is_told_from_one_that_failed_once():
    no_login = claude_envelope("Not logged in · Please run /login", is_error=True)
    no_key = codex_stream(failed="Missing environment variable: `OPENAI_API_KEY`.")
    server = claude_envelope("API Error: 500 Internal server error.", is_error=True)
    assert environment_failure(no_login.encode()) == (
        "the Claude Code run reported an error (is_error): Not logged in · Please run /login"
    )
    assert environment_failure(no_key.encode()) == (
        "the Codex run failed: Missing environment variable: `OPENAI_API_KEY`."
    )
    assert environment_failure(server.encode()) is None
    assert environment_failure(claude_envelope(FENCED).encode()) is None


def test_codex_waiting_for_the_network_again_and_again_is_hopeless():
    wait = _event("error", "Reconnecting... waiting for network (Connection failed)")
    start = codex_stream().splitlines()[:2]
    assert not hopeless("\n".join([*start, wait]).encode())
    assert hopeless("\n".join([*start, wait, wait]).encode())
    recovered = [*start, wait, _event("turn.started", ""), wait]
    assert not hopeless("\n".join(recovered).encode())
