"""The final open findings as SARIF 2.1.0, for code-scanning tools.

One result per place (``review.report.placement``): a finding at lines 4, 15 and 42 is three
results sharing its ID; a finding with a file but no line sits at line 1, one with no file
at the unit's source manifest, so GitHub code scanning shows every result. The rules
(``review.report.sarif_rules``) carry a help page each, and ``security-severity`` and the
``security`` tag only when they are security rules.

A result's partial fingerprint is the finding's own line-independent identity and the
place's rank among the finding's places, never the line: a line inserted above a finding
moves it without making it a new alert.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any
from urllib.parse import quote

from aidlc_review import __version__
from aidlc_review.fsio import dump_json, write_atomic
from aidlc_review.review.record.models import Finding, FindingsDocument
from aidlc_review.review.record.waivers import waived_finding_ids
from aidlc_review.review.report.placement import Place, places_of, unit_anchor
from aidlc_review.review.report.sarif_rules import rule_descriptor, rule_id
from aidlc_review.review.report.sarif_waivers import with_suppression

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
LEVELS = {"critical": "error", "major": "error", "minor": "warning"}
FINGERPRINT_KEY = "aidlcFinding/v2"  # v1 held the line: the key changed with the meaning


def sarif_log(doc: FindingsDocument, today: date | None = None) -> dict[str, Any]:
    """Open findings as results; a waived one is kept, suppressed with its justification."""
    findings = doc.open_findings()
    waived = waived_finding_ids(doc, today or date.today())
    rules = sorted({rule_id(f) for f in findings})
    index = {rule: i for i, rule in enumerate(rules)}
    anchor = unit_anchor(doc)
    results = [
        with_suppression(_result(f, index, place), waived.get(f.id))
        for f in findings
        for place in _places(f, anchor)
    ]
    driver = {
        "name": "aidlc-review",
        "version": __version__,
        "semanticVersion": __version__,
        "informationUri": "https://github.com/awslabs/aidlc-workflows",
        "rules": [
            rule_descriptor(rule, [f for f in findings if rule_id(f) == rule]) for rule in rules
        ],
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


def _places(finding: Finding, anchor: str | None) -> list[Place | None]:
    """Its places; a finding with no file in a document with no manifest stays unlocated
    (a document written before receipts): dropping it would hide a finding."""
    return [*places_of(finding, anchor)] or [None]


def _result(finding: Finding, index: dict[str, int], place: Place | None) -> dict[str, Any]:
    rule = rule_id(finding)
    ordinal = place.ordinal if place else 0
    result: dict[str, Any] = {
        "ruleId": rule,
        "ruleIndex": index[rule],
        "level": LEVELS[finding.severity],
        "message": {"text": f"{finding.id}: {(place and place.message) or finding.finding}"},
        "partialFingerprints": {FINGERPRINT_KEY: f"{finding.fingerprint}:{ordinal}"},
        "properties": {
            "id": finding.id,
            "severity": finding.severity,
            "category": finding.category,
            "source": finding.source,
            "recommendation": finding.recommendation,
        },
    }
    if place is not None:
        region = {"startLine": place.line, "endLine": place.end_line}
        # a URI reference: a name with `#`, `?`, `%`, a space or a newline stays one path
        artifact = {"uri": quote(place.path, safe="/"), "uriBaseId": "%SRCROOT%"}
        result["locations"] = [
            {"physicalLocation": {"artifactLocation": artifact, "region": region}}
        ]
    return result
