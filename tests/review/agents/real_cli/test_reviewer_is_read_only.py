"""The reviewer, run by the real CLIs, only reads: in a trusted project whose settings allow
Edit, Write and Bash and set hooks, a model that tries to write changes nothing, is offered
no writing tool, and no project hook runs; outside a git repository Codex works."""

from __future__ import annotations

import shutil

from aidlc_review.cli.main import main
from tests.review.agents.real_cli.fake_model import Text, Tool
from tests.review.agents.real_cli.project import (
    CALC,
    HOOK_MARKS,
    INSTRUCTIONS,
    PINNED_MODEL,
    answer,
    make_permissive,
    workspace,
)
from tests.review.workspace import CALC_BUG, findings_doc, review_args

WRITERS = {"Edit", "Write", "Bash", "NotebookEdit", "MultiEdit", "PowerShell"}


def test_the_claude_reviewer_in_a_permissive_trusted_project_changes_no_file(
    tmp_path, capsys, real_cli
):
    ws = workspace(tmp_path)
    turns = [
        Tool("Write", {"file_path": str(ws / CALC), "content": "pwned\n"}),
        Tool("Edit", {"file_path": str(ws / CALC), "old_string": "count", "new_string": "1"}),
        Tool("Bash", {"command": f"touch {ws / 'bash-ran'}", "description": "touch"}),
        Tool("Read", {"file_path": str(ws / CALC)}),
        Text(answer()),
    ]
    world = real_cli("claude", turns)
    make_permissive(ws, world.home)

    assert main(review_args(ws, "--reviewer", "claude")) == 1

    assert (ws / CALC).read_text() == CALC_BUG
    assert not (ws / "bash-ran").exists()
    assert [m for m in HOOK_MARKS if (ws / m).exists()] == []
    (first,) = findings_doc(ws)["passes"]
    assert first["reviewer"]["status"] == "answered"
    assert [f["finding"] for f in first["findings"] if f["source"] == "reviewer"] == [
        "mean() divides by zero for an empty list"
    ]
    offered = world.offered_tools()
    assert offered and all(tools and not tools & WRITERS for tools in offered)
    assert all("Read" in tools for tools in offered)
    # the Read it asked for was answered with the file's text
    assert "return sum(values) / count" in world.model.conversation[-1].text


def test_the_claude_reviewer_loads_no_instruction_file_and_no_project_env(
    tmp_path, capsys, real_cli
):
    ws = workspace(tmp_path)
    world = real_cli("claude", [Text(answer())])
    make_permissive(ws, world.home)

    assert main(review_args(ws, "--reviewer", "claude")) == 1

    sent = world.requests_text()
    assert "mean() divides by zero" not in sent  # the answer is the model's, not the brief's
    assert "src/orders/calc.py" in sent  # the brief reached the model
    assert INSTRUCTIONS not in sent
    assert world.model.seen and PINNED_MODEL not in {s.body.get("model") for s in world.model.seen}
    assert [m for m in HOOK_MARKS if (ws / m).exists()] == []


def test_the_codex_reviewer_cannot_write_and_reads_no_agents_md_outside_git(
    tmp_path, capsys, real_cli
):
    ws = workspace(tmp_path)
    shutil.rmtree(ws / ".git")
    turns = [
        Tool("exec_command", {"cmd": f"echo pwned > {CALC}; touch shell-ran"}),
        Text(answer()),
    ]
    world = real_cli("codex", turns)
    make_permissive(ws, world.home)

    assert main(review_args(ws, "--reviewer", "codex")) == 1

    assert (ws / CALC).read_text() == CALC_BUG
    assert not (ws / "shell-ran").exists()
    (first,) = findings_doc(ws)["passes"]
    assert first["reviewer"]["status"] == "answered"
    assert INSTRUCTIONS not in world.requests_text()
    assert len(world.model.conversation) == 2
