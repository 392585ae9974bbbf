"""What the real CLIs say when they fail reaches the person: their own reason is recorded on
any exit status; a CLI that can only fail (not logged in, no key) is an environment error
that spends no pass; a Codex repair that recovered from a ``Reconnecting...`` counts as done,
one whose turn failed as failed."""

from __future__ import annotations

import socket
import time

from aidlc_review.cli.main import main
from tests.review.agents.real_cli import clis
from tests.review.agents.real_cli.fake_model import Failure, Text, Tool
from tests.review.agents.real_cli.project import (
    CALC,
    answer,
    repair_command,
    resolving,
    workspace,
)
from tests.review.workspace import CALC_BUG, CALC_FIXED, findings_doc, review_args


def _no_pass_recorded(ws) -> bool:
    try:
        return findings_doc(ws)["passes"] == []
    except FileNotFoundError:
        return True


def test_a_claude_that_is_not_logged_in_is_an_environment_error_naming_its_reason(
    tmp_path, capsys, real_cli, monkeypatch
):
    ws = workspace(tmp_path)
    world = real_cli("claude", [Text(answer())])
    monkeypatch.delenv("ANTHROPIC_API_KEY")

    assert main(review_args(ws, "--reviewer", "claude")) == 2

    err = capsys.readouterr().err
    assert "reviewer claude: the agent CLI cannot work here: " in err
    assert "Not logged in · Please run /login" in err
    assert "No pass was spent." in err
    assert "Traceback" not in err
    assert _no_pass_recorded(ws)
    assert world.model.seen == []


def test_a_codex_without_its_key_is_an_environment_error_naming_its_reason(
    tmp_path, capsys, real_cli, monkeypatch
):
    ws = workspace(tmp_path)
    world = real_cli("codex", [Text(answer())])
    monkeypatch.delenv("FAKE_MODEL_API_KEY")

    assert main(review_args(ws, "--reviewer", "codex")) == 2

    err = capsys.readouterr().err
    assert "reviewer codex: the agent CLI cannot work here: " in err
    assert "Missing environment variable: `FAKE_MODEL_API_KEY`" in err
    assert _no_pass_recorded(ws)
    assert world.model.seen == []


def test_a_claude_api_error_is_recorded_with_the_clis_own_reason(tmp_path, capsys, real_cli):
    ws = workspace(tmp_path)
    real_cli("claude", [Failure(500, "api_error", "the fake model is down")])

    assert main(review_args(ws, "--reviewer", "claude")) == 1

    (first,) = findings_doc(ws)["passes"]
    assert first["reviewer"]["status"] == "unavailable"
    reason = first["reviewer"]["reason"]
    assert reason.startswith("agent exited with status 1: the Claude Code run reported an error")
    assert "API Error: 500" in reason


def test_a_codex_repair_that_recovered_from_a_reconnect_is_done(tmp_path, capsys, real_cli):
    ws = workspace(tmp_path)
    glitch = Failure(401, "authentication_error", "token expired")
    turns = [
        Text(answer()),  # pass 1: the reviewer finds the bug
        glitch,  # the repairer's first request fails; Codex reconnects
        Tool("exec_command", {"cmd": repair_command()}),
        Text("Guarded mean() against an empty list."),
        resolving,  # pass 2: the reviewer resolves it by ID
    ]
    world = real_cli("codex", turns)

    code = main(review_args(ws, "--reviewer", "codex", "--repairer", "codex"))

    assert world.model.served == len(turns)  # the refused request was made, and retried

    first, second = findings_doc(ws)["passes"]
    assert first["repair"] == {**first["repair"], "agent": "codex", "status": "done"}
    assert (ws / CALC).read_text() == CALC_FIXED
    assert (code, second["verdict"]) == (0, "READY")


def test_a_codex_repair_whose_turn_failed_is_failed_with_its_reason(tmp_path, capsys, real_cli):
    ws = workspace(tmp_path)
    refused = Failure(400, "invalid_request_error", "the request was refused")
    real_cli("codex", [Text(answer()), refused, refused, refused, Text(answer())])

    main(review_args(ws, "--reviewer", "codex", "--repairer", "codex"))

    first = findings_doc(ws)["passes"][0]
    assert first["repair"]["status"] == "failed"
    assert "the Codex run failed: " in first["repair"]["reason"]
    assert "the request was refused" in first["repair"]["reason"]
    assert (ws / CALC).read_text() == CALC_BUG


def test_a_codex_whose_endpoint_is_unreachable_is_stopped_early_as_an_environment_error(
    tmp_path, capsys, real_cli
):
    ws = workspace(tmp_path)
    world = real_cli("codex", [Text(answer())])
    with socket.socket() as probe:  # a loopback port nobody listens on
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}"
    (world.home / ".codex" / "config.toml").write_text(clis.codex_config(closed))
    started = time.monotonic()

    assert main(review_args(ws, "--reviewer", "codex")) == 2

    assert time.monotonic() - started < 120  # not the 600 s turn timeout
    err = capsys.readouterr().err
    assert "reviewer codex: the agent CLI cannot work here: " in err
    assert "waiting for network" in err
    assert _no_pass_recorded(ws)


def test_a_repairer_that_cannot_work_spends_no_pass_and_is_asked_again_by_the_next_run(
    tmp_path, capsys, real_cli, monkeypatch
):
    ws = workspace(tmp_path)
    real_cli("claude", [Text(answer()), resolving])
    codex = real_cli("codex", [Tool("exec_command", {"cmd": repair_command()}), Text("Done.")])
    monkeypatch.delenv("FAKE_MODEL_API_KEY")

    assert main(review_args(ws, "--reviewer", "claude", "--repairer", "codex")) == 2

    assert "repairer codex: the agent CLI cannot work here: " in capsys.readouterr().err
    (only,) = findings_doc(ws)["passes"]
    assert only["repair"] is None
    assert codex.model.seen == []
    # logged in again: the next run repairs, and the second pass is still there to use
    monkeypatch.setenv("FAKE_MODEL_API_KEY", clis.DUMMY_KEY)
    assert main(review_args(ws, "--reviewer", "claude", "--repairer", "codex")) == 0
    first, second = findings_doc(ws)["passes"]
    assert first["repair"]["status"] == "done"
    assert second["verdict"] == "READY"
