"""``code-review.md`` and the SARIF log rendered from a fixed history match golden files.

Regenerate after a deliberate change to the templates or the renderer::

    AIDLC_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/review/report/test_report_golden.py

and commit the updated files under tests/review/golden/.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from aidlc_review.fsio import dump_json
from aidlc_review.review.findings.ledger import Observation, merge
from aidlc_review.review.record.models import Check, FindingsDocument, Pass, ReviewerRecord
from aidlc_review.review.report.markdown import render_report
from aidlc_review.review.report.sarif import sarif_log

GOLDEN = Path(__file__).resolve().parent / "golden"
FP = "sha256:" + "ab" * 32


def _history() -> FindingsDocument:
    secret = Observation(
        "critical",
        "security",
        "src/app/settings.py",
        "3",
        "AWS Access Key (hashed secret 0123abcd)",
        "secret-scan (detect-secrets 1.5.0) reported AWS Access Key at line 3.",
        "Remove the secret and rotate it.",
        "sensor",
        "fp-secret",
        check="secret-scan",
        rule="secret-scan/AWS Access Key",
    )
    style = Observation(
        "minor",
        "maintainability",
        "src/app/util.py",
        None,
        "file is not formatted as the workspace's formatter requires",
        "formatter (ruff 0.6.9) reported formatter/unformatted.",
        "Run the formatter.",
        "sensor",
        "fp-style",
        check="formatter",
        rule="formatter/unformatted",
    )
    logic = Observation(
        "major",
        "error-handling",
        "src/app/calc.py",
        "2-3",
        "mean() divides by zero for an empty list\nwhen called with []",
        "len(values) is 0",
        "Return 0.0 for an empty list.",
        "reviewer",
        "fp-logic",
    )
    naming = Observation(
        "minor",
        "maintainability",
        "src/app/calc.py",
        "7",
        "`m` is not a descriptive name",
        "def m(values):",
        "Call it mean.",
        "reviewer",
        "fp-naming",
    )
    bare = [
        Observation(
            "minor",
            "maintainability",
            "src/app/util.py",
            str(line),
            "E722 Do not use bare `except` (https://docs.astral.sh/ruff/rules/bare-except)",
            f"linter (ruff 0.6.9) reported E722 at line {line}.",
            "Fix it.",
            "sensor",
            f"fp-bare-{line}",
            check="linter",
            rule="E722",
        )
        for line in (4, 15, 42)
    ]
    first = merge([], [secret, style, logic, naming, *bare], 1, 1)
    logic_id = next(f.id for f in first if f.finding.startswith("mean()"))
    resolved = {logic_id: "mean() returns 0.0 for an empty list now"}
    second = merge(first, [style, *bare], 1, 2, resolved=resolved)
    checks = [
        Check(
            name="secret-scan",
            status="passed",
            tool="detect-secrets",
            tool_version="1.5.0",
            findings=0,
        ),
        Check(name="coverage", status="skipped", reason="no test command", findings=0),
    ]
    reviewer = ReviewerRecord(
        agent="command:review-bot", status="answered", summary="Looks right.", verdict="READY"
    )
    passes = [
        Pass.model_validate(
            {
                "attempt": 1,
                "pass": 1,
                "verdict": "NOT-READY",
                "source_fingerprint": FP,
                "reviewer": reviewer,
                "findings": first,
                "checks": checks,
                "at": "2026-05-01T09:30:00Z",
                "by": "dev@example.com",
            }
        ),
        Pass.model_validate(
            {
                "attempt": 1,
                "pass": 2,
                "verdict": "READY",
                "source_fingerprint": FP,
                "reviewer": reviewer,
                "findings": second,
                "checks": checks,
                "at": "2026-05-01T09:41:07Z",
                "by": "dev@example.com",
            }
        ),
    ]
    return FindingsDocument(
        unit="u1-orders", attempt=1, verdict="READY", passes=passes, checks=checks
    )


@pytest.mark.parametrize("name", ["code-review.md", "code-review.sarif"])
def test_rendered_outputs_match_golden(name):
    doc = _history()
    text = render_report(doc) if name.endswith(".md") else dump_json(sarif_log(doc))
    text = text.replace('"version": "0.1.0"', '"version": "X"').replace(
        '"semanticVersion": "0.1.0"', '"semanticVersion": "X"'
    )
    golden = GOLDEN / name
    if os.environ.get("AIDLC_UPDATE_GOLDEN"):
        golden.write_text(text)
    assert text == golden.read_text(), (
        f"{name} differs from its golden file; if intended, regenerate with: "
        "AIDLC_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/review/report/test_report_golden.py"
    )
