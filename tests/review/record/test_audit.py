"""Every pass and gate decision says when (UTC) and who; the record names agents, not commands."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from aidlc_review.cli.main import main
from tests.review.workspace import (
    CLEAN,
    UNIT,
    findings_doc,
    git,
    make_workspace,
    report_text,
    review_args,
    script_agent,
)

UTC = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
RECORD = f"aidlc-docs/construction/{UNIT}/code-review"


def _gate(ws: Path, *extra: str) -> int:
    return main(["review", "gate", "--workspace", str(ws), "--unit", UNIT, *extra])


def test_passes_and_gate_decisions_carry_a_utc_time_and_who_decided(tmp_path, capsys):
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": CLEAN})
    git(ws, "config", "user.email", "dev@example.com")
    assert main(review_args(ws)) == 0
    assert _gate(ws, "--request-changes", "--note", "rename it") == 0
    assert main(review_args(ws, "--by", "runner@example.com")) == 0
    assert _gate(ws, "--approve", "--by", "lead@example.com") == 0

    doc = findings_doc(ws)
    assert [(p["attempt"], p["by"]) for p in doc["passes"]] == [
        (1, "dev@example.com"),
        (2, "runner@example.com"),
    ]
    assert [(g["decision"], g["by"]) for g in doc["gate"]] == [
        ("request-changes", "dev@example.com"),
        ("approve", "lead@example.com"),
    ]
    assert all(UTC.match(item["at"]) for item in [*doc["passes"], *doc["gate"]])
    # code-review.md stays the bytes the pass reviewed (upstream 2.6 binds its reviewer
    # receipt to them): the approval is in the sealed findings, the earlier decision shown
    assert "- attempt 1: request-changes by dev@example.com at " in report_text(ws)
    assert "approve by lead@example.com" not in report_text(ws)


def test_the_committed_record_names_the_agent_never_its_command_line(tmp_path, capsys):
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": CLEAN})
    answer = {"verdict": "READY", "summary": "Fine.", "findings": []}
    reviewer = script_agent(
        tmp_path / "agents" / "review-bot.py",
        f"import sys; sys.stdin.read(); print({json.dumps(json.dumps(answer))})\n",
    )
    command = f"{reviewer} --api-token tok-123 --model big"
    assert main(review_args(ws, "--reviewer", command)) == 0

    agent = findings_doc(ws)["passes"][0]["reviewer"]["agent"]
    assert agent == Path(sys.executable).name
    for path in sorted((ws / RECORD).iterdir()):
        text = path.read_text()
        for secret in ("tok-123", "--api-token", str(tmp_path), sys.executable):
            assert secret not in text, f"{path.name} holds {secret!r}"
