"""Spec of ``review.findings.change_filter`` at its edges: which open findings the unit's
change owns.
Pure (``make mutation``): changes and findings in memory; the git side is tested by the
real reviews of ``test_change_filter.py``."""

from __future__ import annotations

from aidlc_review.review.findings.change_filter import DIFF_CONTEXT, Change, FilterMode, classify
from aidlc_review.review.record.models import Finding, Location

APP = "src/app.py"


def finding(
    lines: list[tuple[int, int | None]] | None = None,
    *,
    path: str = APP,
    source: str = "sensor",
    severity: str = "major",
    category: str = "maintainability",
    check: str | None = "linter",
    rule: str | None = "F401",
    text: str = "unused import",
    status: str = "open",
) -> Finding:
    places = [
        Location(line=a, end_line=b) for a, b in (lines if lines is not None else [(10, None)])
    ]
    return Finding.model_validate(
        {
            "id": "CR-001",
            "severity": severity,
            "category": category,
            "path": path,
            "locations": places,
            "finding": text,
            "evidence": "seen",
            "recommendation": "fix it",
            "status": status,
            "source": source,
            "check": check,
            "rule": rule,
            "fingerprint": "fp",
            "first_seen": 1,
            "attempt": 1,
        }
    )


def change(
    mode: FilterMode, at_base: frozenset[str] = frozenset({"fp"}), **lines: set[int]
) -> Change:
    """The unit's change; by default every finding here ("fp") is also reported at the base."""
    named = {APP if k == "app" else k: frozenset(v) for k, v in lines.items()}
    return Change("base", mode, named, at_base)


def test_a_finding_the_bases_bytes_do_not_have_is_the_changes_on_any_line() -> None:
    assert change("added", frozenset(), app={1}).owns(finding())
    assert change("added", frozenset({"other"}), other={1}).owns(finding())
    assert not change("added", frozenset({"fp"}), app={1}).owns(finding())


def test_without_the_bases_findings_nothing_is_proven_pre_existing() -> None:
    assert Change("base", "added", {APP: frozenset({1})}, None).owns(finding())


def test_with_added_only_a_changed_line_of_the_finding_counts() -> None:
    assert change("added", app={10}).owns(finding())
    assert not change("added", app={9, 11}).owns(finding())
    # a range: every line of it, and no further
    assert change("added", app={12}).owns(finding([(10, 12)]))
    assert not change("added", app={13}).owns(finding([(10, 12)]))
    # any of its locations
    assert change("added", app={30}).owns(finding([(10, None), (30, None)]))


def test_diff_context_reaches_three_lines_around_either_end() -> None:
    assert DIFF_CONTEXT == 3
    for line in (7, 13):
        assert change("diff_context", app={line}).owns(finding())
    for line in (6, 14):
        assert not change("diff_context", app={line}).owns(finding())
    assert change("diff_context", app={15}).owns(finding([(10, 12)]))
    assert not change("diff_context", app={16}).owns(finding([(10, 12)]))


def test_file_mode_owns_any_line_of_a_changed_file_and_nofilter_everything() -> None:
    assert change("file", app={500}).owns(finding())
    assert not change("file", other={1}).owns(finding())
    assert change("nofilter").owns(finding())
    assert change("nofilter", other={1}).owns(finding(path="src/untouched.py"))


def test_a_file_the_unit_did_not_change_owns_nothing() -> None:
    for mode in ("added", "diff_context", "file"):
        assert not change(mode, other={10}).owns(finding())  # type: ignore[arg-type]
        assert not change(mode, app=set()).owns(finding())  # type: ignore[arg-type]
        assert not change(mode, app=set()).owns(finding([]))  # type: ignore[arg-type]


def test_a_line_less_finding_on_a_changed_file_is_the_changes() -> None:
    assert change("added", app={99}).owns(finding([]))


def test_what_no_line_can_place_is_always_the_changes() -> None:
    unplaceable = [
        finding(source="reviewer"),
        finding(source="runtime"),
        finding(path=""),
        finding(check="secret-scan", rule="GitHub Token"),
        finding(rule="S105"),
        finding(severity="critical", category="security", rule="S608"),
        finding(check="secret-scan", rule="too-large"),
        finding(check="secret-scan", rule="timed-out"),
        finding(rule="dependencies/unverified"),
        finding(rule=None, text="detect-secrets could not verify src/app.py"),
    ]
    for found in unplaceable:
        assert change("added", other={1}).owns(found), found


def test_only_critical_security_blocks_everywhere_not_critical_or_security_alone() -> None:
    off_change = change("added", app={99})
    assert not off_change.owns(finding(severity="critical", category="correctness"))
    assert not off_change.owns(finding(severity="major", category="security", rule="S608"))
    assert not off_change.owns(finding(rule=None))
    assert not off_change.owns(finding(rule="verified-ok", text="could verify"))


def test_classify_derives_each_status_again_and_keeps_resolved_ones() -> None:
    owned, old = finding([(10, None)]), finding([(50, None)], status="pre-existing")
    resolved = finding([(50, None)], status="resolved")
    said_open = finding([(50, None)])
    here = change("added", app={10})
    assert [f.status for f in classify([owned, old, resolved, said_open], here)] == [
        "open",
        "pre-existing",
        "resolved",
        "pre-existing",
    ]
    recorded_old = finding([(10, None)], status="pre-existing")
    assert classify([recorded_old], here)[0].status == "open"
    # unchanged when the status already agrees: the same finding
    [same] = classify([owned], here)
    assert same is owned


def test_without_a_base_every_unresolved_finding_is_open() -> None:
    old = finding(status="pre-existing")
    resolved = finding(status="resolved")
    assert [f.status for f in classify([old, resolved, finding()], None)] == [
        "open",
        "resolved",
        "open",
    ]
    assert (
        classify(iter([old]), None)[0].model_dump()
        == old.model_copy(update={"status": "open"}).model_dump()
    )
