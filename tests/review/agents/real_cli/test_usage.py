"""Each agent turn's tokens (input, output, cache) and cost, as the real CLI reports them,
and its duration, are recorded with the pass in the findings document."""

from __future__ import annotations

import json

from aidlc_review.cli.main import main
from tests.review.agents.real_cli.fake_model import USAGE, Text, Tool
from tests.review.agents.real_cli.project import CALC, answer, repair_command, workspace
from tests.review.workspace import findings_doc, report_text, review_args


def _per_request(requests: int, *, cache_write: bool) -> dict[str, int]:
    """What the fake model reported over ``requests`` answers (Codex's Responses API
    reports no cache writes)."""
    return {
        "input_tokens": requests * USAGE["input_tokens"],
        "output_tokens": requests * USAGE["output_tokens"],
        "cache_read_tokens": requests * USAGE["cache_read"],
        "cache_write_tokens": requests * USAGE["cache_write"] if cache_write else 0,
    }


def test_claude_reviewer_and_repairer_usage_is_recorded_per_pass(tmp_path, capsys, real_cli):
    ws = workspace(tmp_path)
    fixed = (
        "def mean(values: list[float]) -> float:\n    return sum(values) / max(len(values), 1)\n"
    )
    turns = [
        Tool("Read", {"file_path": str(ws / CALC)}),
        Text(answer()),
        Tool("Write", {"file_path": str(ws / CALC), "content": fixed}),
        Text("Guarded mean()."),
        Text(answer(bug=False)),
    ]
    world = real_cli("claude", turns)
    capsys.readouterr()

    main(review_args(ws, "--reviewer", "claude", "--repairer", "claude", "--json"))

    said = json.loads(capsys.readouterr().out)
    first = findings_doc(ws)["passes"][0]
    assert said["usage"][0] == {
        "pass": 1, "reviewer": first["reviewer"]["usage"], "repair": first["repair"]["usage"]
    }  # fmt: skip
    tokens = f"{2 * USAGE['input_tokens']:,} in / {2 * USAGE['output_tokens']:,} out"
    assert "claude (1 turn, " in report_text(ws) and tokens in report_text(ws)
    review, repair = first["reviewer"]["usage"], first["repair"]["usage"]
    assert {k: review[k] for k in _per_request(2, cache_write=True)} == _per_request(
        2, cache_write=True
    )
    assert {k: repair[k] for k in _per_request(2, cache_write=True)} == _per_request(
        2, cache_write=True
    )
    assert review["turns"] == repair["turns"] == 1
    assert review["cost_usd"] > 0 and repair["cost_usd"] > 0
    assert 0 < review["seconds"] < 60
    assert world.model.served >= 4


def test_codex_reviewer_usage_is_recorded_per_pass(tmp_path, capsys, real_cli):
    ws = workspace(tmp_path)
    turns = [
        Tool("exec_command", {"cmd": f"cat {CALC}"}),
        Text(answer()),
        Tool("exec_command", {"cmd": repair_command()}),
        Text("Guarded mean()."),
        Text(answer(bug=False)),
    ]
    real_cli("codex", turns)

    main(review_args(ws, "--reviewer", "codex", "--repairer", "codex"))

    first = findings_doc(ws)["passes"][0]
    for usage in (first["reviewer"]["usage"], first["repair"]["usage"]):
        assert {k: usage[k] for k in _per_request(2, cache_write=False)} == _per_request(
            2, cache_write=False
        )
        assert usage["turns"] == 1 and usage["cost_usd"] is None
        assert 0 < usage["seconds"] < 60


def test_the_builtin_reviewer_records_no_usage(tmp_path, capsys):
    ws = workspace(tmp_path)

    main(review_args(ws))

    (first,) = findings_doc(ws)["passes"]
    assert "usage" not in first["reviewer"]


def test_a_spent_agent_budget_stops_the_agents_and_goes_to_the_gate_not_ready(
    tmp_path, capsys, real_cli
):
    """The first review costs 2,560 tokens (two requests); a budget of 2,000 allows no repair
    and no further review: the unit goes to the gate NOT-READY, saying why."""
    ws = workspace(tmp_path)
    settings = ws / "pyproject.toml"
    settings.write_text(
        settings.read_text() + "\n[tool.aidlc-review]\nagent-budget-tokens = 2000\n"
    )
    turns = [Tool("Read", {"file_path": str(ws / CALC)}), Text(answer())]
    world = real_cli("claude", turns)

    code = main(review_args(ws, "--reviewer", "claude", "--repairer", "claude"))

    err = capsys.readouterr().err
    assert code == 1 and "no repair: agent budget exhausted: 2,560 of 2,000 tokens spent" in err
    [only] = findings_doc(ws)["passes"]
    assert only["repair"] is None and world.model.served == 2  # no repairer turn was asked

    assert main(review_args(ws, "--reviewer", "claude", "--repairer", "claude")) == 1
    last = findings_doc(ws)["passes"][-1]["reviewer"]
    assert (last["status"], last["reason"]) == (
        "unavailable", "agent budget exhausted: 2,560 of 2,000 tokens spent"
    )  # fmt: skip
    assert world.model.served == 2, "no model was asked again"
