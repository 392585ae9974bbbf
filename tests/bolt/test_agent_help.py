"""``bolt run --help`` names the agent presets, as ``review run --help`` does."""

from __future__ import annotations

import re

import pytest

from aidlc_review.cli.main import main


def _help(capsys: pytest.CaptureFixture[str], *command: str) -> str:
    assert main([*command, "--help"]) == 0
    return re.sub(r"\s+", " ", capsys.readouterr().out)


@pytest.mark.parametrize("command", [("bolt", "run"), ("review", "run")])
def test_run_help_names_the_claude_and_codex_presets_for_reviewer_and_repairer(
    capsys: pytest.CaptureFixture[str], command: tuple[str, ...]
) -> None:
    text = _help(capsys, *command)

    assert "--reviewer builtin|claude|codex|command:CMD" in text
    assert "--repairer none|claude|codex|command:CMD" in text
    assert text.count("claude/codex: that CLI headless") == 2
