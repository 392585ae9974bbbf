"""Committed schemas match the models; documents and SARIF validate against their schemas."""

from __future__ import annotations

import json
from pathlib import Path

from jsonschema import Draft4Validator, Draft202012Validator

from aidlc_review.cli.main import main
from aidlc_review.review.record.schemas import (
    ANSWER_SCHEMA,
    FINDINGS_SCHEMA,
    REGENERATE,
    drifted,
    load_schema,
)
from aidlc_review.sensors.findings_schema import verdict_mismatches
from tests.review.workspace import (
    LEAKY,
    LINT_ERROR,
    UNFORMATTED,
    findings_doc,
    make_workspace,
    review_args,
)

SARIF_SCHEMA = (
    Path(__file__).resolve().parents[2] / "fixtures" / "sarif" / "sarif-schema-2.1.0.json"
)


def test_the_committed_schemas_match_the_models():
    assert drifted() == [], (
        f"schemas drifted from review/record/models.py; regenerate with: {REGENERATE}"
    )


def test_a_real_findings_document_validates_and_its_verdicts_agree(tmp_path, capsys):
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": LINT_ERROR})
    main(review_args(ws))
    doc = findings_doc(ws)
    Draft202012Validator(load_schema(FINDINGS_SCHEMA)).validate(doc)
    assert verdict_mismatches(doc) == []
    doc["verdict"] = "READY"
    assert verdict_mismatches(doc) == [
        "$.verdict: READY although 1 critical/major finding(s) are open"
    ]


def test_the_answer_schema_rejects_what_the_runtime_rejects():
    validator = Draft202012Validator(load_schema(ANSWER_SCHEMA))
    good = {"verdict": "READY", "summary": "ok", "findings": []}
    assert not list(validator.iter_errors(good))
    assert list(validator.iter_errors({**good, "extra": 1}))
    bad_severity = {
        **good,
        "findings": [
            {
                "severity": "blocker",
                "category": "tests",
                "path": "a",
                "finding": "f",
                "evidence": "e",
                "recommendation": "r",
            }
        ],
    }
    assert list(validator.iter_errors(bad_severity))


def test_sarif_output_validates_against_the_sarif_2_1_0_schema(tmp_path, capsys):
    ws = make_workspace(
        tmp_path / "ws",
        {
            "src/orders/app.py": LINT_ERROR,
            "src/orders/util.py": UNFORMATTED,
            "src/orders/settings.py": LEAKY,
        },
    )
    sarif = tmp_path / "review.sarif"
    assert main(review_args(ws, "--sarif", str(sarif))) == 1
    log = json.loads(sarif.read_text())
    schema = json.loads(SARIF_SCHEMA.read_text())
    Draft4Validator(schema).validate(log)
    results = log["runs"][0]["results"]
    assert [(r["properties"]["id"], r["level"], r["ruleId"]) for r in results] == [
        ("CR-001", "error", "linter/F401"),
        ("CR-002", "error", "secret-scan/AWS Access Key"),
        ("CR-003", "warning", "formatter/unformatted"),
    ]
    first = results[0]["locations"][0]["physicalLocation"]
    assert first == {
        "artifactLocation": {"uri": "src/orders/app.py", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 1, "endLine": 1},
    }
    # security-severity only where GitHub reads it and only on the security rule (#25)
    rules = {r["id"]: r["properties"] for r in log["runs"][0]["tool"]["driver"]["rules"]}
    assert rules == {
        "formatter/unformatted": {"tags": ["maintainability"]},
        "linter/F401": {"tags": ["maintainability"]},
        "secret-scan/AWS Access Key": {"tags": ["security"], "security-severity": "9.0"},
    }
    assert all("security-severity" not in r["properties"] for r in results)


def test_a_finding_without_a_line_or_a_file_is_located_and_still_valid(tmp_path, capsys):
    """Code scanning shows no result without a file and a start line: a file-level finding
    sits at line 1 of its file, a unit-level one at line 1 of the unit's manifest."""
    from aidlc_review.review.record.models import FindingsDocument
    from aidlc_review.review.report.sarif import sarif_log

    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": LINT_ERROR})
    main(review_args(ws))
    doc = FindingsDocument.model_validate(findings_doc(ws))
    last = doc.passes[-1]
    (lint,) = last.findings
    file_level = lint.model_copy(update={"id": "CR-002", "location": None, "locations": []})
    unit_level = file_level.model_copy(update={"id": "CR-003", "path": ""})
    passes = [last.model_copy(update={"findings": [lint, file_level, unit_level]})]
    log = sarif_log(doc.model_copy(update={"passes": passes}))
    Draft4Validator(json.loads(SARIF_SCHEMA.read_text())).validate(log)
    where = [
        (r["properties"]["id"], r["locations"][0]["physicalLocation"])
        for r in log["runs"][0]["results"]
    ]
    manifest = "aidlc-docs/construction/u1-orders/code-generation/source-manifest.json"
    assert [(i, p["artifactLocation"]["uri"], p["region"]["startLine"]) for i, p in where] == [
        ("CR-001", "src/orders/app.py", 1),
        ("CR-002", "src/orders/app.py", 1),
        ("CR-003", manifest, 1),
    ]


def _findings_schema_check(tmp_path, text):
    from aidlc_review.sensors import run_sensors
    from aidlc_review.sensors.manifests import load_sensor_manifests

    target = tmp_path / "ws" / "record" / "code-review-findings.json"
    target.parent.mkdir(parents=True)
    target.write_text(text)
    manifests = [m for m in load_sensor_manifests(None) if m.id == "findings-schema"]
    settings = {"findings_path": str(target), "cache": False}
    (result,) = run_sensors(
        tmp_path / "ws", [], manifests, settings=settings, cache_dir=tmp_path / "cache"
    )
    return result


def test_the_findings_schema_sensor_reports_schema_errors_on_the_findings_file(tmp_path):
    result = _findings_schema_check(tmp_path, json.dumps({"version": 2}))
    assert result.status == "failed"
    messages = {(f.severity, f.path, f.message) for f in result.findings}
    assert {
        ("major", "record/code-review-findings.json", "$.version: 1 was expected"),
        ("major", "record/code-review-findings.json", "$: 'unit' is a required property"),
    } <= messages


def test_the_findings_schema_sensor_reports_a_verdict_that_disagrees(tmp_path, capsys):
    ws = make_workspace(tmp_path / "src-ws", {"src/orders/app.py": LINT_ERROR})
    main(review_args(ws))
    doc = findings_doc(ws)
    doc["passes"][0]["verdict"] = "READY"
    result = _findings_schema_check(tmp_path, json.dumps(doc))
    assert [f.message for f in result.findings] == [
        "$.passes[0].verdict: READY although 1 critical/major finding(s) are open"
    ]


def test_the_findings_schema_sensor_skips_before_the_first_pass(tmp_path):
    from aidlc_review.sensors import run_sensors
    from aidlc_review.sensors.manifests import load_sensor_manifests

    manifests = [m for m in load_sensor_manifests(None) if m.id == "findings-schema"]
    (result,) = run_sensors(
        tmp_path, [], manifests, settings={"cache": False}, cache_dir=tmp_path / "cache"
    )
    assert (result.status, result.reason) == ("skipped", "no code-review-findings.json written yet")
