"""A reviewer's blocking finding must be backed by the code: the real CLIs' answers, one
finding quoting code that is there and one quoting code that is not."""

from __future__ import annotations

import json

import pytest

from aidlc_review.cli.main import main
from tests.review.agents.real_cli.fake_model import Text, Tool
from tests.review.agents.real_cli.project import CALC, workspace
from tests.review.workspace import findings_doc, report_text, review_args

REAL = {
    "severity": "major",
    "category": "error-handling",
    "path": CALC,
    "location": "3",
    "finding": "mean() divides by zero for an empty list",
    "evidence": "`return sum(values) / count` with count 0",
    "recommendation": "Return 0.0 for an empty list.",
}
INVENTED = {
    "severity": "critical",
    "category": "security",
    "path": CALC,
    "location": "2",
    "finding": "the values are passed to a shell",
    "evidence": "`subprocess.run(values, shell=True)`",
    "recommendation": "Do not use a shell.",
}


def answer(*findings: dict) -> str:
    data = {"verdict": "NOT-READY", "summary": "Two problems.", "findings": list(findings)}
    return "My review:\n\n```json\n" + json.dumps(data, indent=2) + "\n```\n"


@pytest.mark.parametrize("cli", ["claude", "codex"])
def test_a_hallucinated_blocking_finding_does_not_block_while_a_real_one_does(
    tmp_path, capsys, real_cli, cli
):
    ws = workspace(tmp_path)
    read = (
        Tool("Read", {"file_path": str(ws / CALC)})
        if cli == "claude"
        else Tool("exec_command", {"cmd": f"cat {CALC}"})
    )
    real_cli(cli, [read, Text(answer(REAL, INVENTED))])

    assert main(review_args(ws, "--reviewer", cli)) == 1

    found = {f["finding"]: f["status"] for f in findings_doc(ws)["passes"][-1]["findings"]}
    assert found == {REAL["finding"]: "open", INVENTED["finding"]: "unverified"}
    assert "## Unverified reviewer findings (1)" in report_text(ws)


def test_a_reviewer_whose_only_blocker_is_invented_leaves_the_unit_ready(
    tmp_path, capsys, real_cli
):
    ws = workspace(tmp_path)
    real_cli("claude", [Tool("Read", {"file_path": str(ws / CALC)}), Text(answer(INVENTED))])

    assert main(review_args(ws, "--reviewer", "claude")) == 0
    [only] = findings_doc(ws)["passes"][-1]["findings"]
    assert (only["finding"], only["status"]) == (INVENTED["finding"], "unverified")
