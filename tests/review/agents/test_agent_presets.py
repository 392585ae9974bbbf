"""``--reviewer claude|codex`` and ``--repairer claude|codex``: the documented headless command
lines, run as fake ``claude`` / ``codex`` executables on PATH that print those CLIs' real
output shapes; a malformed answer is asked for once more inside the same pass."""

from __future__ import annotations

import json
import os
import stat
import sys
import textwrap
from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from aidlc_review.review.agents.adapters import PRESETS
from tests.review.workspace import (
    CALC_BUG,
    CALC_FIXED,
    UNIT,
    findings_doc,
    make_workspace,
    review_args,
)

# The fake agents' shared part: log the call, review calc.py, or repair it.
AGENT = """
import json, os, pathlib, re, sys

brief = sys.stdin.read()
calls = pathlib.Path(os.environ["FAKE_AGENT_LOG"])
with calls.open("a") as log:
    on_disk = pathlib.Path(os.environ["AIDLC_BRIEF"]).read_text()
    log.write(json.dumps({"exe": pathlib.Path(sys.argv[0]).name, "argv": sys.argv[1:],
                          "role": os.environ["AIDLC_ROLE"], "brief": os.environ["AIDLC_BRIEF"],
                          "stdin_is_brief": brief == on_disk}) + "\\n")
calc = pathlib.Path("src/orders/calc.py")

def review():
    if len(calls.read_text().splitlines()) <= int(os.environ.get("FAKE_GARBAGE_CALLS", "0")):
        return "I had a look and it seems fine to me."
    findings, resolved = [], []
    if "if not values" in calc.read_text():
        resolved = [{"id": found, "reason": "mean() now guards the empty list"}
                    for found in re.findall(r"(CR-[0-9]+) major error-handling", brief)]
    else:
        findings = [{"severity": "major", "category": "error-handling",
                     "path": "src/orders/calc.py", "location": "3",
                     "finding": "mean() divides by zero for an empty list",
                     "evidence": "count = len(values) is 0 for []",
                     "recommendation": "Return 0.0 for an empty list."}]
    answer = {"verdict": "NOT-READY" if findings else "READY", "summary": "Reviewed calc.py.",
              "findings": findings, "resolved": resolved}
    return "Here is my review.\\n\\n```json\\n" + json.dumps(answer, indent=2) + "\\n```\\n"

def repair():
    calc.write_text(%(fixed)r)
    return "Guarded mean() against an empty list."

text = repair() if os.environ["AIDLC_ROLE"] == "repairer" else review()
"""
CLAUDE = """
print(json.dumps({"type": "result", "subtype": "success", "is_error": False,
                  "duration_ms": 5120, "duration_api_ms": 4870, "num_turns": 3, "result": text,
                  "session_id": "5f1c0e7a-8d2b-4a53-9a0e-1b2c3d4e5f60",
                  "total_cost_usd": 0.0421, "usage": {"input_tokens": 1830, "output_tokens": 412}}))
"""
CODEX = """
events = [{"type": "thread.started", "thread_id": "0199a213-81c0-7800-8aa1-bbab2a035a53"},
          {"type": "turn.started"},
          {"type": "item.completed", "item": {"id": "item_0", "type": "reasoning",
                                              "text": "Reading calc.py"}},
          {"type": "item.completed", "item": {"id": "item_1", "type": "agent_message",
                                              "text": "Working on it."}},
          {"type": "item.completed", "item": {"id": "item_2", "type": "agent_message",
                                              "text": text}},
          {"type": "turn.completed", "usage": {"input_tokens": 24763, "output_tokens": 122}}]
print("\\n".join(json.dumps(e) for e in events))
"""


@pytest.fixture
def fake_clis(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``claude`` and ``codex`` executables first on PATH; returns their call log."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shared = textwrap.dedent(AGENT) % {"fixed": CALC_FIXED}
    for name, tail in (("claude", CLAUDE), ("codex", CODEX)):
        exe = bin_dir / name
        exe.write_text(f"#!{sys.executable}\n{shared}{textwrap.dedent(tail)}")
        exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    log = tmp_path / "calls.jsonl"
    monkeypatch.setenv("FAKE_AGENT_LOG", str(log))
    return log


def _calls(log: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def _workspace(tmp_path: Path) -> Path:
    return make_workspace(tmp_path / "ws", {"src/orders/calc.py": CALC_BUG})


def _brief(ws: Path, name: str) -> str:
    folder = ws / "aidlc-docs" / ".aidlc-engine" / "code-review" / UNIT / "briefs"
    return (folder / name).read_text()


@pytest.mark.parametrize("cli", ["claude", "codex"])
def test_preset_reviewer_and_repairer_run_the_documented_command_lines(
    tmp_path, capsys, fake_clis, cli
):
    ws = _workspace(tmp_path)

    code = main(review_args(ws, "--reviewer", cli, "--repairer", cli))

    assert code == 0
    first, second = findings_doc(ws)["passes"]
    assert (first["verdict"], second["verdict"]) == ("NOT-READY", "READY")
    assert (first["reviewer"]["agent"], first["reviewer"]["status"]) == (cli, "answered")
    assert first["repair"]["agent"] == cli and first["repair"]["status"] == "done"
    assert [f["status"] for f in second["findings"] if f["source"] == "reviewer"] == ["resolved"]
    calls = _calls(fake_clis)
    # the preset's own command line (the real CLIs' tests in real_cli/ show what it holds)
    argv = (list(PRESETS["--reviewer"][cli].argv[1:]), list(PRESETS["--repairer"][cli].argv[1:]))
    assert [(c["exe"], c["role"], c["argv"]) for c in calls] == [
        (cli, "reviewer", argv[0]),
        (cli, "repairer", argv[1]),
        (cli, "reviewer", argv[0]),
    ]
    assert all(c["stdin_is_brief"] for c in calls)


def test_a_malformed_answer_is_asked_for_again_within_the_same_pass(
    tmp_path, capsys, fake_clis, monkeypatch
):
    ws = _workspace(tmp_path)
    monkeypatch.setenv("FAKE_GARBAGE_CALLS", "1")

    assert main(review_args(ws, "--reviewer", "claude")) == 1

    (only,) = findings_doc(ws)["passes"]
    assert only["reviewer"]["status"] == "answered"
    assert [f["finding"] for f in only["findings"] if f["source"] == "reviewer"] == [
        "mean() divides by zero for an empty list"
    ]
    calls = _calls(fake_clis)
    assert [Path(str(c["brief"])).name for c in calls] == [
        "reviewer-attempt1-pass1.md",
        "reviewer-attempt1-pass1-retry.md",
    ]
    retry = _brief(ws, "reviewer-attempt1-pass1-retry.md")
    assert "## Your previous answer was rejected" in retry
    assert "> answer is not JSON: Expecting value: line 1 column 1 (char 0)" in retry
    assert retry.startswith(_brief(ws, "reviewer-attempt1-pass1.md").rstrip("\n"))


def test_a_second_malformed_answer_is_reviewer_unavailable_and_the_retry_costs_no_pass(
    tmp_path, capsys, fake_clis, monkeypatch
):
    ws = _workspace(tmp_path)
    monkeypatch.setenv("FAKE_GARBAGE_CALLS", "99")

    assert main(review_args(ws, "--reviewer", "codex")) == 1

    doc = findings_doc(ws)
    assert len(doc["passes"]) == 1
    assert doc["passes"][0]["reviewer"] == {
        **doc["passes"][0]["reviewer"],
        "agent": "codex",
        "status": "unavailable",
        "reason": "answer is not JSON: Expecting value: line 1 column 1 (char 0)",
    }
    assert len(_calls(fake_clis)) == 2
    # the unavailable pass is retried by the next run, inside the same budget of 2
    monkeypatch.setenv("FAKE_GARBAGE_CALLS", "0")
    fake_clis.write_text("")
    assert main(review_args(ws, "--reviewer", "codex")) == 1
    assert [p["reviewer"]["status"] for p in findings_doc(ws)["passes"]] == [
        "unavailable",
        "answered",
    ]


def test_presets_are_named_in_the_usage_error(tmp_path, capsys):
    ws = _workspace(tmp_path)
    assert main(review_args(ws, "--reviewer", "gpt")) == 2
    assert "--reviewer 'gpt': must be builtin | claude | codex | command:CMD" in (
        capsys.readouterr().err
    )
