"""Spec of ``review.findings.change_filter``: which findings the unit's change owns, per
filter mode,
what is never pre-existing, and that a classification is derived again, never read back.
Pure: no git, no sensor (the real reviews are in ``test_change_filter.py``)."""

from __future__ import annotations

from aidlc_review.review.findings.change_filter import Change, classify
from aidlc_review.review.record.consistency import _stored_verdicts, contradictions
from aidlc_review.review.record.models import Finding, FindingsDocument, Location
from aidlc_review.review.record.recompute import merge_recomputed
from tests.review.workspace import UNIT

APP = "src/orders/app.py"
OLD = "src/orders/old.py"


def finding(
    line: int | None,
    *,
    path: str = APP,
    severity: str = "major",
    category: str = "maintainability",
    source: str = "sensor",
    check: str | None = "linter",
    rule: str | None = "F401",
    status: str = "open",
    number: int = 1,
) -> Finding:
    return Finding.model_validate(
        {
            "id": f"CR-{number:03d}",
            "severity": severity,
            "category": category,
            "path": path,
            "location": str(line) if line else None,
            "locations": [Location(line=line)] if line else [],
            "finding": "F401 `os` imported but unused",
            "evidence": "linter reported F401.",
            "recommendation": "Fix it.",
            "status": status,
            "source": source,
            "check": check,
            "checks": [check] if check else [],
            "rule": rule,
            "fingerprint": f"sha256:{number}",
            "first_seen": 1,
            "attempt": 1,
        }
    )


# every finding of these specs was reported on the base's bytes too: only lines decide here
AT_BASE = frozenset(f"sha256:{number}" for number in range(1000))


def change(mode: str = "added", **lines: set[int]) -> Change:
    app = {APP: frozenset(lines.get("app", set()))}
    return Change("base", mode, app, AT_BASE)  # type: ignore[arg-type]


def statuses(found: list[Finding]) -> list[str]:
    return [f.status for f in found]


def test_without_a_base_nothing_is_pre_existing() -> None:
    assert statuses(classify([finding(3)], None)) == ["open"]


def test_added_mode_a_finding_on_a_changed_line_is_the_changes_and_one_beside_it_is_not() -> None:
    found = classify([finding(10), finding(13, number=2)], change(app={10}))
    assert statuses(found) == ["open", "pre-existing"]


def test_diff_context_mode_counts_three_lines_around_a_change() -> None:
    found = classify([finding(13), finding(14, number=2)], change("diff_context", app={10}))
    assert statuses(found) == ["open", "pre-existing"]


def test_file_mode_counts_every_line_of_a_changed_file_and_none_of_an_unchanged_one() -> None:
    found = classify([finding(90), finding(2, path=OLD, number=2)], change("file", app={10}))
    assert statuses(found) == ["open", "pre-existing"]


def test_nofilter_mode_keeps_everything_open() -> None:
    found = classify([finding(2, path=OLD), finding(90, number=2)], change("nofilter", app={1}))
    assert statuses(found) == ["open", "open"]


def test_a_range_touching_a_changed_line_is_the_changes() -> None:
    ranged = finding(8).model_copy(update={"locations": [Location(line=8, end_line=11)]})
    assert statuses(classify([ranged], change(app={11}))) == ["open"]


def test_secrets_critical_security_reviewer_runtime_and_unit_findings_block_anywhere() -> None:
    unchanged = change(app={50})
    found = classify(
        [
            finding(3, check="secret-scan", rule="AWS Access Key", severity="critical"),
            finding(3, rule="S105", number=2),  # a hard-coded password, from ruff
            finding(3, rule="S608", severity="critical", category="security", number=3),
            finding(3, source="reviewer", check=None, rule=None, number=4),
            finding(None, path="", source="runtime", check=None, number=5),
            finding(None, path="", check="coverage", rule="coverage/tests-failed", number=6),
            finding(None, check="secret-scan", rule="too-large", number=7),
            finding(None, check="secret-scan", rule="timed-out", number=8),
        ],
        unchanged,
    )
    assert statuses(found) == ["open"] * 8
    # a major security finding on an untouched line is pre-existing like any other, and so
    # is a critical one that is not about security (a file that did not parse at the base)
    assert statuses(classify([finding(3, rule="S608", category="security")], unchanged)) == [
        "pre-existing"
    ]
    assert statuses(classify([finding(3, rule="E999", severity="critical")], unchanged)) == [
        "pre-existing"
    ]


def test_a_line_less_finding_follows_its_file() -> None:
    whole = finding(None, check="formatter", rule="formatter/unformatted")
    assert statuses(classify([whole], change(app={4}))) == ["open"]
    assert statuses(classify([whole.model_copy(update={"path": OLD})], change(app={4}))) == [
        "pre-existing"
    ]


def test_a_stored_classification_is_never_taken_it_is_derived_again() -> None:
    forged = finding(10, status="pre-existing")  # on a line the unit changed
    assert statuses(classify([forged], change(app={10}))) == ["open"]
    assert statuses(classify([finding(3, status="resolved")], change(app={10}))) == ["resolved"]


def test_recomputing_at_a_gate_derives_the_classification_on_both_sides() -> None:
    recorded = [finding(10, status="pre-existing")]
    again = merge_recomputed(recorded, [], 1, 1, {APP}, not_run={"linter"}, change=change(app={10}))
    assert statuses(again.findings) == ["open"]
    assert again.understated == []  # the record is not "understated": it is re-derived


def test_a_stored_ready_the_diff_does_not_back_is_a_contradiction() -> None:
    last = {
        "attempt": 1,
        "pass": 1,
        "verdict": "READY",
        "source_fingerprint": "sha256:" + "0" * 64,
        "reviewer": {"agent": "builtin", "status": "answered"},
        "findings": [finding(10, status="pre-existing").model_dump(mode="json")],
        "checks": [],
    }
    doc = FindingsDocument.model_validate(
        {"unit": UNIT, "attempt": 1, "verdict": "READY", "passes": [last], "checks": []}
    )
    assert contradictions("x.json", doc, None, None, change(app={10})) == []  # no receipt
    assert _stored_verdicts("x.json", doc, change(app={99})) == []
    assert _stored_verdicts("x.json", doc, change(app={10})) == [
        "x.json: stored verdict READY, but its own findings decide NOT-READY (CR-001 major)"
    ]
