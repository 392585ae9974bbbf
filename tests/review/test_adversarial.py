"""The adversarial table: the review fails closed against the agents it polices.

Each case is one attack from issue 10, played with real git, real detect-secrets and
real agent processes. Secret-looking values are built at run time so none sits in
the test sources.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from tests.review.workspace import (
    CLEAN,
    FAKE_KEY,
    LEAKY,
    findings_doc,
    make_workspace,
    report_text,
    review_args,
    script_agent,
)

GITHUB_TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
SECRETS = (FAKE_KEY, GITHUB_TOKEN)


def every_file_under(root: Path) -> dict[str, bytes]:
    found = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = Path(folder) / name
            if not path.is_symlink():
                found[str(path)] = path.read_bytes()
    return found


def files_holding(root: Path, values: tuple[str, ...]) -> list[str]:
    return sorted(
        path
        for path, data in every_file_under(root).items()
        if any(v.encode() in data for v in values)
    )


def quoting_reviewer(tmp_path: Path) -> str:
    """A reviewer that quotes the offending line, and a token it read, as a real model does."""
    finding = {
        "severity": "major",
        "category": "security",
        "path": "src/orders/settings.py",
        "location": "3",
        "finding": f"Hard-coded AWS key {FAKE_KEY} in settings",
        "evidence": f'AWS_ACCESS_KEY_ID = "{FAKE_KEY}"; also saw token {GITHUB_TOKEN}',
        "recommendation": "Load it from the environment.",
    }
    answer = {"verdict": "NOT-READY", "summary": f"key {FAKE_KEY}", "findings": [finding]}
    return script_agent(
        tmp_path / "agents" / "reviewer.py",
        f"""
        import json, sys
        sys.stdin.read()
        print("reading the source: found {FAKE_KEY} and {GITHUB_TOKEN}", file=sys.stderr)
        print(json.dumps({answer!r}))
        """,
    )


def test_a_reviewer_quoting_an_aws_key_and_a_github_token_leaks_neither_anywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = make_workspace(
        tmp_path / "ws", {"src/orders/settings.py": LEAKY, "src/orders/app.py": CLEAN}
    )
    repairer = script_agent(tmp_path / "agents" / "repairer.py", "import sys; sys.stdin.read()")
    sarif = tmp_path / "out" / "review.sarif"
    sarif.parent.mkdir()
    args = ["--reviewer", quoting_reviewer(tmp_path), "--repairer", repairer]
    code = main(review_args(ws, *args, "--sarif", str(sarif), "--json"))

    out, err = capsys.readouterr()
    assert code == 1
    assert files_holding(ws, SECRETS) == [str(ws / "src/orders/settings.py")]
    assert files_holding(sarif.parent, SECRETS) == []
    assert not [v for v in SECRETS if v in out or v in err]
    assert "[redacted: GitHub Token " in err
    doc = findings_doc(ws)
    assert len(doc["passes"]) == 2
    quoted = [f for f in doc["passes"][-1]["findings"] if f["finding"].startswith("secret quoted")]
    # the AWS key is already the unit's secret-scan finding: only the token is news
    token_hash = hashlib.sha1(GITHUB_TOKEN.encode()).hexdigest()[:8]
    assert [(f["severity"], f["status"], f["finding"]) for f in quoted] == [
        (
            "critical",
            "open",
            f"secret quoted by the reviewer: [redacted: GitHub Token {token_hash}]",
        )
    ]
    assert "[redacted: AWS Access Key " in report_text(ws)
