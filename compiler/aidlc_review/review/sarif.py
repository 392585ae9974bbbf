"""The final open findings as SARIF 2.1.0, for code-scanning tools."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

from aidlc_review import __version__
from aidlc_review.fsio import dump_json, write_atomic
from aidlc_review.review.models import Finding, FindingsDocument
from aidlc_review.review.sarif_waivers import with_suppression
from aidlc_review.review.waivers import waived_finding_ids

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
LEVELS = {"critical": "error", "major": "error", "minor": "warning"}
SECURITY_SEVERITY = {"critical": "9.0", "major": "7.0", "minor": "3.0"}


def sarif_log(doc: FindingsDocument, today: date | None = None) -> dict[str, Any]:
    """Open findings as results; a waived one is kept, suppressed with its justification."""
    findings = doc.open_findings()
    waived = waived_finding_ids(doc, today or date.today())
    rules = sorted({_rule_id(f) for f in findings})
    index = {rule: i for i, rule in enumerate(rules)}
    driver = {
        "name": "aidlc-review",
        "version": __version__,
        "semanticVersion": __version__,
        "informationUri": "https://github.com/awslabs/aidlc-workflows",
        "rules": [
            {
                "id": rule,
                "name": rule.replace("/", "-"),
                "shortDescription": {"text": f"code review: {rule}"},
            }
            for rule in rules
        ],
    }
    run: dict[str, Any] = {
        "tool": {"driver": driver},
        "automationDetails": {"id": f"code-review/{doc.unit or 'stage'}/attempt-{doc.attempt}"},
        "results": [with_suppression(_result(f, index), waived.get(f.id)) for f in findings],
        "properties": {"verdict": doc.verdict, "unit": doc.unit, "attempt": doc.attempt},
    }
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def write_sarif(path: Path, doc: FindingsDocument) -> None:
    write_atomic(path, dump_json(sarif_log(doc)))


def _rule_id(finding: Finding) -> str:
    """``linter/F401``, ``secret-scan/AWSKeyDetector``, ``reviewer/error-handling``."""
    owner = finding.check or finding.source
    rule = finding.rule or finding.category
    return rule if rule.startswith(owner + "/") else f"{owner}/{rule}"


def _result(finding: Finding, index: dict[str, int]) -> dict[str, Any]:
    rule = _rule_id(finding)
    result: dict[str, Any] = {
        "ruleId": rule,
        "ruleIndex": index[rule],
        "level": LEVELS[finding.severity],
        "message": {"text": f"{finding.id}: {finding.finding}"},
        "partialFingerprints": {"aidlcFinding/v1": finding.fingerprint},
        "properties": {
            "id": finding.id,
            "severity": finding.severity,
            "category": finding.category,
            "source": finding.source,
            "security-severity": SECURITY_SEVERITY[finding.severity],
            "recommendation": finding.recommendation,
        },
    }
    if finding.path:
        location: dict[str, Any] = {
            "artifactLocation": {"uri": finding.path, "uriBaseId": "%SRCROOT%"}
        }
        if finding.location:
            start, _, end = finding.location.partition("-")
            location["region"] = {"startLine": int(start), "endLine": int(end or start)}
        result["locations"] = [{"physicalLocation": location}]
    return result
