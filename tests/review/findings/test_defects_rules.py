"""Spec of ``review.findings.defects``: which rule codes name one defect.

Pure (``make mutation``)."""

from __future__ import annotations

from aidlc_review.review.findings.defects import (
    BROKEN_TEST_RUN,
    SECRET,
    SWALLOWED_EXCEPTION,
    UNDEFINED_NAME,
    UNFORMATTED,
    UNIT_WIDE,
    UNTESTED_LINES,
    UNUSED_NAME,
    defect_class,
    is_secret,
)
from aidlc_review.sensors.descriptors import shipped_tools


def test_the_classes_have_the_names_the_group_keys_carry() -> None:
    assert (SECRET, UNDEFINED_NAME, SWALLOWED_EXCEPTION, UNTESTED_LINES, BROKEN_TEST_RUN) == (
        "hardcoded-secret",
        "undefined-name",
        "swallowed-exception",
        "untested-lines",
        "broken-test-run",
    )
    assert UNIT_WIDE == {BROKEN_TEST_RUN}


def test_rules_of_several_tools_name_one_defect_whichever_sensor_ran_them() -> None:
    for rule in ("S105", "S106", "S107"):
        assert defect_class(rule, "linter") == SECRET
    assert (
        defect_class("F821", "linter")
        == defect_class("name-defined", "type-check")
        == UNDEFINED_NAME
    )
    for rule in ("BLE001", "S110", "S112", "E722"):
        assert defect_class(rule, "security") == SWALLOWED_EXCEPTION
    for rule in ("coverage/file-below-threshold", "coverage/changed-below-threshold"):
        assert defect_class(rule, "coverage") == UNTESTED_LINES
    assert defect_class("coverage/tests-failed", "coverage") == BROKEN_TEST_RUN


def test_tsc_and_eslint_name_one_unused_or_undefined_name() -> None:
    assert UNUSED_NAME == "unused-name"
    assert (
        defect_class("tsc:TS6133", "type-check")
        == defect_class("eslint:@typescript-eslint/no-unused-vars", "linter")
        == defect_class("eslint:no-unused-vars", "linter")
        == UNUSED_NAME
    )
    assert defect_class("tsc:TS2304", "type-check") == defect_class("eslint:no-undef", "linter")
    assert defect_class("tsc:TS2304", "type-check") == UNDEFINED_NAME


def test_a_rule_outside_the_table_and_no_rule_are_no_class() -> None:
    assert defect_class("F401", "linter") is None
    assert defect_class(None, "linter") is None
    assert defect_class(None, None) is None
    assert defect_class("", "linter") is None


def test_every_finding_of_the_secret_scan_is_a_secret_but_one_that_could_not_look() -> None:
    assert defect_class("GitHub Token", "secret-scan") == SECRET
    assert defect_class(None, "secret-scan") == SECRET
    assert defect_class("F401", "secret-scan") == SECRET  # the sensor's class comes first
    for rule in ("too-large", "timed-out", "secret-scan/unverified"):
        assert defect_class(rule, "secret-scan") is None
        assert not is_secret(rule, "secret-scan")
        assert defect_class(rule, None) is None


def test_is_secret_is_the_secret_class_only() -> None:
    assert is_secret("Stripe Access Key", "secret-scan")
    assert is_secret("S106", "security")
    assert not is_secret("S608", "security")
    assert not is_secret("F821", "linter")
    assert not is_secret(None, None)


def test_every_defect_class_a_tool_descriptor_names_is_one_this_module_knows() -> None:
    known = {SECRET, UNDEFINED_NAME, UNUSED_NAME, SWALLOWED_EXCEPTION, UNTESTED_LINES, UNFORMATTED}
    named = {
        (sensor, spec.tool, code): defect
        for sensor, spec in shipped_tools()
        for code, defect in spec.defects.items()
    }
    assert named  # the descriptors do class rules
    assert {key: defect for key, defect in named.items() if defect not in known} == {}


def test_a_described_tools_rule_is_classed_under_its_tool_prefixed_id_only() -> None:
    assert defect_class("tsc:TS2304", "type-check") == UNDEFINED_NAME
    assert defect_class("TS2304", "type-check") is None
