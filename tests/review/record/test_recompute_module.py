"""Spec of ``review.record.recompute``: what a gate keeps of a record and what it derives again."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from aidlc_review.cli.main import main
from aidlc_review.review.findings.change_filter import Change
from aidlc_review.review.findings.ledger import UNCLAIMED_NOTE, merge
from aidlc_review.review.findings.observation import Observation
from aidlc_review.review.inputs.paths import RecordPaths
from aidlc_review.review.record.models import Finding, FindingsDocument, Receipt
from aidlc_review.review.record.recompute import Recomputed, merge_recomputed, recompute_findings
from aidlc_review.review.record.store import load_receipt
from tests.review.workspace import LINT_ERROR, UNIT, make_workspace, review_args


class _EveryPrint(frozenset[str]):
    """Every finding was reported on the base's bytes too: only the changed lines decide."""

    def __contains__(self, item: object) -> bool:
        return True


EVERY_PRINT = _EveryPrint()

APP = "src/orders/app.py"
OLD = "src/orders/old.py"
UNUSED = "F401 `os` imported but unused"


def lint(
    line: int | None = 1,
    *,
    path: str = APP,
    rule: str = "F401",
    severity: str = "major",
    text: str = UNUSED,
    check: str = "linter",
) -> Observation:
    """One hit as a sensor reports it in this run."""
    return Observation(
        severity,  # type: ignore[arg-type]
        "maintainability",
        path,
        str(line) if line else None,
        text,
        f"{check} reported {rule}.",
        "Fix it.",
        "sensor",
        f"sha256:{check}:{path}:{rule}:{text}",
        check=check,
        rule=rule,
    )


def recorded(*seen: Observation, reviewed: set[str] | None = None) -> list[Finding]:
    """The ledger a pass that saw ``seen`` writes (attempt 1, pass 1)."""
    return merge([], list(seen), 1, 1, reviewed or {APP, OLD})


def forged(found: Finding, **update: object) -> Finding:
    return found.model_copy(update=update)


def other(
    source: str, *, status: str = "open", check: str | None = None, number: int = 9
) -> Finding:
    """A finding no sensor of this run re-examines: the runtime's, a reviewer's, or a
    sensor's that did not run here."""
    return Finding.model_validate(
        {
            "id": f"CR-{number:03d}",
            "severity": "major",
            "category": "correctness",
            "path": "" if source == "runtime" else APP,
            "finding": "reviewer unavailable: agent exited with status 3"
            if source == "runtime"
            else "mean() divides by zero",
            "evidence": "e",
            "recommendation": "r",
            "status": status,
            "source": source,
            "check": check,
            "checks": [check] if check else [],
            "rule": "reviewer-unavailable" if source == "runtime" else None,
            "fingerprint": f"sha256:{source}:{number}",
            "first_seen": 1,
            "attempt": 1,
        }
    )


def again(
    record: list[Finding],
    *seen: Observation,
    not_run: set[str] | None = None,
    change: Change | None = None,
    reviewed: set[str] | None = None,
) -> Recomputed:
    return merge_recomputed(
        record, list(seen), 1, 1, reviewed or {APP, OLD}, not_run or set(), change
    )


def shown(found: list[Finding]) -> list[tuple[str, str, str]]:
    return [(f.id, f.status, f.severity) for f in found]


def understated(finding: Finding) -> str:
    return (
        f"{finding.path or '(unit)'}: recomputed now, {finding.check} reports {finding.rule} "
        f"({finding.severity}): {finding.finding}; the record does not hold it open"
    )


# --- merge_recomputed: the pure half -------------------------------------------------------


def test_a_record_that_holds_what_the_sensors_report_now_stands_and_is_not_understated() -> None:
    record = recorded(lint(1), lint(4, rule="E501", severity="minor", text="E501 too long"))
    result = again(record, lint(1), lint(4, rule="E501", severity="minor", text="E501 too long"))
    assert result == Recomputed(record, [])
    assert result.not_run == [] and result.deferred == []


def test_a_finding_the_record_resolved_but_the_sensor_reports_comes_back_open_and_named() -> None:
    [honest] = recorded(lint(1))
    result = again([forged(honest, status="resolved")], lint(1))
    assert shown(result.findings) == [("CR-001", "open", "major")]
    assert result.understated == [
        f"{APP}: recomputed now, linter reports F401 (major): {UNUSED}; "
        "the record does not hold it open"
    ]


def test_a_finding_the_record_left_out_is_added_under_the_next_id_and_named() -> None:
    record = [forged(f, status="resolved") for f in recorded(lint(2, path=OLD))]
    record = [*record, other("reviewer", number=2)]
    result = again(record, lint(1))
    assert shown(result.findings) == [
        ("CR-001", "resolved", "major"),
        ("CR-002", "open", "major"),
        ("CR-003", "open", "major"),
    ]
    assert result.understated == [understated(result.findings[2])]


def test_a_blocking_finding_the_record_rates_minor_is_rated_again_and_named() -> None:
    [honest] = recorded(lint(1))
    result = again([forged(honest, severity="minor")], lint(1))
    assert shown(result.findings) == [("CR-001", "open", "major")]
    assert result.understated == [understated(result.findings[0])]


def test_a_finding_already_blocking_in_the_record_is_not_named_when_it_is_rated_worse() -> None:
    [honest] = recorded(lint(1))
    result = again([honest], lint(1, severity="critical"))
    assert shown(result.findings) == [("CR-001", "open", "critical")]
    assert result.understated == []


def test_a_minor_finding_the_record_left_out_is_added_but_understates_nothing() -> None:
    result = again([], lint(3, rule="E501", severity="minor", text="E501 too long"))
    assert shown(result.findings) == [("CR-001", "open", "minor")]
    assert result.understated == []


def test_a_unit_wide_finding_the_record_left_out_is_named_for_the_unit() -> None:
    audit = lint(
        None,
        path="",
        rule="dependencies/audit",
        check="dependencies",
        text="the dependency audit `pip-audit` exited 1: 1 known vulnerability",
    )
    result = again([], audit)
    assert result.understated == [
        "(unit): recomputed now, dependencies reports dependencies/audit (major): the dependency "
        "audit `pip-audit` exited 1: 1 known vulnerability; the record does not hold it open"
    ]


def test_a_sensor_finding_no_sensor_reports_now_is_resolved() -> None:
    result = again(recorded(lint(1)))
    assert shown(result.findings) == [("CR-001", "resolved", "major")]
    assert result.understated == []


def test_a_finding_on_a_path_no_longer_reviewed_stays_open_with_a_note() -> None:
    [old] = recorded(lint(2, path=OLD))
    [kept] = again([old], reviewed={APP}).findings
    assert (kept.status, kept.evidence) == ("open", f"{old.evidence} {UNCLAIMED_NOTE}")


def test_the_runtimes_findings_stand_exactly_as_recorded() -> None:
    unavailable, closed = other("runtime", number=1), other("runtime", status="resolved", number=2)
    result = again([unavailable, closed])
    assert result.findings == [unavailable, closed]
    assert result.understated == []


def test_a_reviewer_finding_is_not_resolved_by_the_sensors_silence() -> None:
    judged, fixed = other("reviewer", number=1), other("reviewer", status="resolved", number=2)
    result = again([judged, fixed], lint(1))
    assert shown(result.findings) == [
        ("CR-001", "open", "major"),
        ("CR-002", "resolved", "major"),
        ("CR-003", "open", "major"),  # the linter's, new
    ]
    assert [(f.finding, f.fingerprint) for f in result.findings[:2]] == [
        (judged.finding, judged.fingerprint),
        (fixed.finding, fixed.fingerprint),
    ]
    assert result.understated == [understated(result.findings[2])]


def test_the_findings_of_a_sensor_that_could_not_run_here_stand_as_recorded() -> None:
    typed = other("sensor", check="type-check", number=1)
    assert again([typed], not_run={"type-check"}).findings == [typed]
    # the record's word on it stands, whatever it says: its silence here proves nothing
    dropped = forged(typed, status="resolved")
    assert again([dropped], not_run={"type-check"}) == Recomputed([dropped], [])
    # the same finding when the sensor did run here and no longer reports it
    assert shown(again([typed], not_run={"linter"}).findings) == [("CR-001", "resolved", "major")]


def test_a_finding_two_sensors_reported_stands_only_when_neither_could_run() -> None:
    both = forged(other("sensor", check="linter", number=1), checks=["linter", "security"])
    assert again([both], not_run={"linter", "security"}).findings == [both]
    assert shown(again([both], not_run={"linter"}).findings) == [("CR-001", "resolved", "major")]


def test_a_sensor_finding_naming_no_sensor_never_stands_on_the_records_word() -> None:
    nameless = forged(other("sensor", number=1), check=None, checks=[])
    assert shown(again([nameless], not_run={"linter"}).findings) == [
        ("CR-001", "resolved", "major")
    ]


def test_a_finding_on_a_line_the_unit_did_not_change_is_pre_existing_and_not_named() -> None:
    change = Change("base", "added", {APP: frozenset({5})}, EVERY_PRINT)
    result = again([], lint(1), lint(5, rule="F841", text="F841 `x` unused"), change=change)
    assert [(f.location, f.status) for f in result.findings] == [
        ("1", "pre-existing"),
        ("5", "open"),
    ]
    assert result.understated == [understated(result.findings[1])]


def test_a_record_calling_a_changed_line_pre_existing_is_derived_again_not_named() -> None:
    change = Change("base", "added", {APP: frozenset({1})}, EVERY_PRINT)
    [honest] = recorded(lint(1))
    result = again([forged(honest, status="pre-existing")], lint(1), change=change)
    assert shown(result.findings) == [("CR-001", "open", "major")]
    assert result.understated == []  # the stored verdict is checked apart (consistency)


# --- recompute_findings: the sensors run again on a real reviewed workspace ---------------


@dataclass(frozen=True)
class Reviewed:
    paths: RecordPaths
    doc: FindingsDocument
    receipt: Receipt

    def with_last_pass(
        self, findings: list[Finding] | None = None, checks: dict[str, str] | None = None
    ) -> FindingsDocument:
        """The document with its last pass's findings, or its checks' statuses, replaced."""
        last = self.doc.passes[-1]
        statuses = checks or {}
        update = {
            "findings": last.findings if findings is None else findings,
            "checks": [
                c.model_copy(update={"status": statuses[c.name]}) if c.name in statuses else c
                for c in last.checks
            ],
        }
        return self.doc.model_copy(update={"passes": [last.model_copy(update=update)]})

    def recompute(self, doc: FindingsDocument, thorough: bool = True) -> Recomputed:
        return recompute_findings(self.paths, doc, self.receipt, None, None, thorough)


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory: pytest.TempPathFactory) -> Reviewed:
    """A unit with an unused import, reviewed once with real ruff and detect-secrets (no
    type-check or coverage configured: both are skipped in its pass)."""
    ws = make_workspace(tmp_path_factory.mktemp("recompute") / "ws", {APP: LINT_ERROR})
    assert main(review_args(ws)) == 1
    paths = RecordPaths.resolve(ws, UNIT)
    receipt = load_receipt(paths)
    assert receipt is not None
    doc = FindingsDocument.model_validate_json(paths.findings.read_bytes())
    return Reviewed(paths, doc, receipt)


def checks_of(doc: FindingsDocument) -> dict[str, str]:
    return {c.name: c.status for c in doc.passes[-1].checks}


def test_an_honest_record_recomputes_to_itself(reviewed: Reviewed) -> None:
    assert checks_of(reviewed.doc)["type-check"] == "skipped"
    result = reviewed.recompute(reviewed.doc)
    assert result == Recomputed(reviewed.doc.passes[-1].findings, [], [], [])


def test_a_record_that_dropped_the_linters_finding_is_understated(reviewed: Reviewed) -> None:
    [f401] = reviewed.doc.passes[-1].findings
    result = reviewed.recompute(reviewed.with_last_pass([forged(f401, status="resolved")]))
    assert shown(result.findings) == [("CR-001", "open", "major")]
    assert result.understated == [
        f"{APP}: recomputed now, linter reports F401 (major): {f401.finding}; "
        "the record does not hold it open"
    ]


def test_a_sensor_that_ran_in_the_pass_but_cannot_run_here_is_named_and_its_findings_stand(
    reviewed: Reviewed,
) -> None:
    [f401] = reviewed.doc.passes[-1].findings
    typed = other("sensor", check="type-check", number=2)
    doc = reviewed.with_last_pass([f401, typed], {"type-check": "failed"})
    result = reviewed.recompute(doc)
    assert result.not_run == [
        "type-check: could not run here (no type-check configured in the workspace (looked for "
        ".mypy.ini, mypy.ini, pyproject.toml:tool.mypy, setup.cfg:mypy)); it ran in the pass: "
        "its recorded findings stand"
    ]
    assert result.findings == [f401, typed]
    assert result.understated == []
    passed = reviewed.recompute(reviewed.with_last_pass([f401], {"type-check": "passed"}))
    assert [line.split(":")[0] for line in passed.not_run] == ["type-check"]


def test_a_sensor_that_could_not_verify_in_the_pass_nor_run_here_keeps_its_blocking_finding(
    reviewed: Reviewed,
) -> None:
    """Its silence here proves nothing: the pass's "could not verify" still blocks."""
    [f401] = reviewed.doc.passes[-1].findings
    unverified = other("sensor", check="type-check", number=2).model_copy(
        update={"rule": "type-check/unverified", "severity": "major"}
    )
    doc = reviewed.with_last_pass([f401, unverified], {"type-check": "error"})
    result = reviewed.recompute(doc)
    assert [line.split(":")[0] for line in result.not_run] == ["type-check"]
    assert shown(result.findings) == [("CR-001", "open", "major"), ("CR-002", "open", "major")]


def test_a_sensor_skipped_in_the_pass_and_here_is_not_named(reviewed: Reviewed) -> None:
    skipped = [name for name, status in checks_of(reviewed.doc).items() if status == "skipped"]
    # unjudged-source: the review's note that no type-check took the Python file
    assert sorted(skipped) == [
        "coverage",
        "dependencies",
        "findings-schema",
        "type-check",
        "unjudged-source",
    ]
    assert reviewed.recompute(reviewed.doc).not_run == []


def test_a_freshness_check_leaves_the_test_runner_to_the_gates(reviewed: Reviewed) -> None:
    [f401] = reviewed.doc.passes[-1].findings
    covered = other("sensor", check="coverage", number=2)
    result = reviewed.recompute(reviewed.with_last_pass([f401, covered]), thorough=False)
    assert result.deferred == [
        "coverage: runs the project's tests, so only `review verify --ready` and the gates run "
        "it again; its recorded findings stand"
    ]
    assert result.findings == [f401, covered]
    thorough = reviewed.recompute(reviewed.with_last_pass([f401, covered]))
    assert thorough.deferred == []
    assert shown(thorough.findings) == [
        ("CR-001", "open", "major"),
        ("CR-002", "resolved", "major"),
    ]


def test_the_findings_documents_own_check_is_never_run_again(reviewed: Reviewed) -> None:
    [f401] = reviewed.doc.passes[-1].findings
    schema = other("sensor", check="findings-schema", number=2)
    doc = reviewed.with_last_pass([f401, schema], {"findings-schema": "failed"})
    result = reviewed.recompute(doc)
    assert result.findings == [f401, schema]
    assert result.not_run == []
