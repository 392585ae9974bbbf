"""No file under the agent's HOME keeps a secret the review redacts: the presets write no
session transcript (Claude Code ``--no-session-persistence``, Codex ``--ephemeral``), though
the model read the secret through the CLI's own tools."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from tests.review.agents.real_cli.fake_model import Text, Tool
from tests.review.agents.real_cli.project import CALC, answer
from tests.review.workspace import (
    CALC_BUG,
    FAKE_KEY,
    LEAKY,
    findings_doc,
    make_workspace,
    review_args,
)

SETTINGS = "src/orders/settings.py"


def _holding(root: Path, secret: bytes) -> list[str]:
    found = []
    for folder, _, names in os.walk(root):
        for name in names:
            path = Path(folder) / name
            if not path.is_symlink() and path.is_file() and secret in path.read_bytes():
                found.append(str(path.relative_to(root)))
    return sorted(found)


@pytest.mark.parametrize("cli", ["claude", "codex"])
def test_no_file_under_the_agents_home_holds_the_secret_it_read(tmp_path, capsys, real_cli, cli):
    ws = make_workspace(tmp_path / "ws", {CALC: CALC_BUG, SETTINGS: LEAKY})
    read = (
        Tool("Read", {"file_path": str(ws / SETTINGS)})
        if cli == "claude"
        else Tool("exec_command", {"cmd": f"cat {SETTINGS}"})
    )
    world = real_cli(cli, [read, Text(answer())])

    main(review_args(ws, "--reviewer", cli))

    assert FAKE_KEY in world.requests_text()  # the model did read it
    assert findings_doc(ws)["passes"][0]["reviewer"]["status"] == "answered"
    assert _holding(world.home, FAKE_KEY.encode()) == []
