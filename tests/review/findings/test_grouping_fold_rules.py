"""Spec of ``review.findings.grouping``'s fold: a test run broken by a name that is gone and the
static finding naming it are one defect, standing where the unit's change is."""

from __future__ import annotations

from aidlc_review.review.findings.grouping import group_hits
from tests.review.findings.test_grouping_rules import hit

APP = "src/shop/__init__.py"
LISTS = "src/shop/lists.py"
HEAD = "the targeted test command exited 2: "
RUN = f"{HEAD}tests/test_x.py::test_x failed: ImportError: cannot import name 'old' from 'shop'"
STALE = 'Module "shop.lists" has no attribute "old"  [attr-defined]'


def _run(message: str = RUN, severity: str = "major"):
    return hit("coverage", "coverage/tests-failed", None, severity, message, path="")


def _stale(line: int = 7, severity: str = "major", message: str = STALE, check="type-check"):
    return hit(check, "attr-defined", line, severity, message, path=APP)


def _one(found):
    [only] = found
    return only


def test_on_an_untouched_line_the_static_finding_folds_into_the_run_at_the_change():
    changed = {LISTS: {4, 5}}
    merged = _one(group_hits([_stale(), _run()], changed))

    assert merged.rule == "coverage/tests-failed"  # the run: it is the change's, it blocks
    assert (merged.path, merged.location) == (LISTS, "4")
    assert merged.grouped is not None and merged.grouped.checks == ("coverage", "type-check")
    assert merged.evidence.endswith(f"; the same defect: type-check ({APP}:7): {STALE}")


def test_on_a_changed_line_the_run_folds_into_the_static_finding():
    changed = {APP: {7}, LISTS: {4}}
    merged = _one(group_hits([_run(), _stale()], changed))

    assert (merged.rule, merged.path, merged.location) == ("attr-defined", APP, "7")
    assert merged.grouped is not None and merged.grouped.checks == ("coverage", "type-check")
    assert f"; the same defect: coverage: {HEAD}" in merged.evidence


def test_without_a_base_the_static_finding_is_the_change():
    merged = _one(group_hits([_run(), _stale()], None))
    assert merged.rule == "attr-defined"


def test_the_worse_severity_of_the_two_stands():
    merged = _one(group_hits([_run(severity="critical"), _stale(severity="major")], None))
    assert merged.severity == "critical"
    merged = _one(group_hits([_run(severity="major"), _stale(severity="critical")], None))
    assert merged.severity == "critical"


def test_each_way_a_gone_name_is_said_is_recognised():
    for said in (
        f"{HEAD}t failed: NameError: name 'old' is not defined",
        f"{HEAD}t failed: AttributeError: module 'shop' has no attribute 'old'",
        f"{HEAD}t failed: ImportError: cannot import name 'old' from 'shop'",
    ):
        assert len(group_hits([_run(said), _stale()], None)) == 1, said


def test_a_static_finding_quoting_the_name_either_way_is_its_cause():
    for message in ('has no attribute "old"', "undefined name 'old'"):
        assert len(group_hits([_run(), _stale(message=message)], None)) == 1, message


def test_no_fold_without_a_shared_name_or_for_a_minor_or_a_reviewer_finding():
    assert len(group_hits([_run(), _stale(message='no attribute "other"')], None)) == 2
    assert len(group_hits([_run(f"{HEAD}t failed: assert 1 == 2"), _stale()], None)) == 2
    assert len(group_hits([_run(), _stale(severity="minor")], None)) == 2
    reviewer = _stale()
    from dataclasses import replace

    assert len(group_hits([_run(), replace(reviewer, source="reviewer")], None)) == 2


def test_a_long_message_is_cut_in_the_evidence():
    long = f"{HEAD}t failed: ImportError: cannot import name 'old' " + "x" * 400
    merged = _one(group_hits([_run(long), _stale()], None))
    said = merged.evidence.split("; the same defect: coverage: ", 1)[1]
    assert len(said) == 300 and said.endswith("...")
    short = _one(group_hits([_run(), _stale()], None))
    assert short.evidence.endswith(
        f"coverage: {HEAD}1 test(s) failed: tests/test_x.py::test_x; first failure: "
        "tests/test_x.py::test_x failed: ImportError: cannot import name 'old' from 'shop'"
    )


def test_lines_around_the_static_finding_are_not_its_line():
    changed = {APP: {1, 6, 8}, LISTS: {4}}  # around line 7, never line 7
    merged = _one(group_hits([_stale(), _run()], changed))
    # the run stands for the unit (two files changed: no one place is the change)
    assert (merged.rule, merged.path, merged.location) == ("coverage/tests-failed", "", None)
