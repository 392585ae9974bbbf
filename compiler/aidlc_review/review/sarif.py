"""The final open findings as SARIF 2.1.0, for code-scanning tools.

One result per location: a finding at lines 4, 15 and 42 is three results sharing
its ID. ``security-severity`` sits on the rule (where GitHub code scanning reads it),
the highest of the rule's findings, and on each result.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

from aidlc_review import __version__
from aidlc_review.fsio import dump_json, write_atomic
from aidlc_review.review.grouping import parse_location
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
    results = [
        with_suppression(result, waived.get(f.id))
        for f in findings
        for result in _results(f, index)
    ]
    driver = {
        "name": "aidlc-review",
        "version": __version__,
        "semanticVersion": __version__,
        "informationUri": "https://github.com/awslabs/aidlc-workflows",
        "rules": [_rule(rule, [f for f in findings if _rule_id(f) == rule]) for rule in rules],
    }
    run: dict[str, Any] = {
        "tool": {"driver": driver},
        "automationDetails": {"id": f"code-review/{doc.unit or 'stage'}/attempt-{doc.attempt}"},
        "results": results,
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


def _rule(rule: str, findings: list[Finding]) -> dict[str, Any]:
    worst = max(float(SECURITY_SEVERITY[f.severity]) for f in findings)
    return {
        "id": rule,
        "name": rule.replace("/", "-"),
        "shortDescription": {"text": f"code review: {rule}"},
        "properties": {"security-severity": f"{worst:.1f}"},
    }


def _results(finding: Finding, index: dict[str, int]) -> list[dict[str, Any]]:
    """One result per location (one without a region when the finding has none)."""
    legacy = parse_location(finding.location)  # a document written before ``locations``
    places = finding.locations or ([legacy] if legacy else [])
    if not finding.path or not places:
        return [_result(finding, index, None, None, None)]
    return [_result(finding, index, p.line, p.end_line, p.message) for p in places]


def _result(
    finding: Finding,
    index: dict[str, int],
    line: int | None,
    end_line: int | None,
    message: str | None,
) -> dict[str, Any]:
    rule = _rule_id(finding)
    fingerprint = finding.fingerprint if line is None else f"{finding.fingerprint}:{line}"
    result: dict[str, Any] = {
        "ruleId": rule,
        "ruleIndex": index[rule],
        "level": LEVELS[finding.severity],
        "message": {"text": f"{finding.id}: {message or finding.finding}"},
        "partialFingerprints": {"aidlcFinding/v1": fingerprint},
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
        if line is not None:
            location["region"] = {"startLine": line, "endLine": end_line or line}
        result["locations"] = [{"physicalLocation": location}]
    return result
