"""A reviewer's text that cannot be checked for secrets in time is never written as it was.

The slow text is real: detect-secrets' keyword detector takes seconds on a few kilobytes of
``secret_password_token_`` repeated. The limit is set small here (0.5 s instead of 10 s).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from aidlc_review.sensors import redact
from tests.review.workspace import (
    CLEAN,
    findings_doc,
    make_workspace,
    report_text,
    review_args,
    script_agent,
)

SLOW = "secret_password_token_" * 300
CHUNK = "secret_password_token_" * 4  # what any copy of the text would hold


def slow_reviewer(tmp_path: Path) -> str:
    finding = {
        "severity": "major",
        "category": "error-handling",
        "path": "src/orders/app.py",
        "location": "4",
        "finding": "total() accepts negative prices",
        "evidence": SLOW,
        "recommendation": "Reject negative prices.",
    }
    answer = {"verdict": "NOT-READY", "summary": "one problem", "findings": [finding]}
    return script_agent(
        tmp_path / "agents" / "reviewer.py",
        f"import json, sys\nsys.stdin.read()\nprint(json.dumps({answer!r}))\n",
    )


def test_a_finding_whose_evidence_cannot_be_checked_in_time_is_written_redacted_wholesale(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(redact, "REDACT_SECONDS", 0.5)
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": CLEAN})

    code = main(review_args(ws, "--reviewer", slow_reviewer(tmp_path), "--repairer", "none"))

    out, err = capsys.readouterr()
    [finding] = [f for f in findings_doc(ws)["passes"][-1]["findings"] if f["source"] != "sensor"]
    hashed = hashlib.sha1(SLOW.encode()).hexdigest()[:8]
    assert finding["evidence"] == f"[redacted: unchecked text {hashed}]"
    # evidence withheld wholesale quotes no code: kept, unverified, not blocking
    assert (code, finding["status"]) == (0, "unverified")
    assert finding["finding"] == "total() accepts negative prices"  # the rest was checked
    written = [p for p in ws.rglob("*") if p.is_file() and ".git" not in p.parts]
    assert [p for p in written if CHUNK.encode() in p.read_bytes()] == []
    assert CHUNK not in out and CHUNK not in err
    assert "[redacted: unchecked text " in report_text(ws)
