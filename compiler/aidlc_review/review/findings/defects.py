"""Which rule codes name one defect: the cross-sensor identity of a finding.

Several tools report one defect in their own words: detect-secrets' detectors and
ruff's ``S105`` flag one hard-coded secret, ruff's ``F821`` and mypy's ``name-defined``
one undefined name, ``BLE001``/``S110``/``E722`` one swallowing handler, tsc's ``TS6133``
and eslint's ``no-unused-vars`` one unused variable. A finding is
identified by (path, defect class) instead of (path, rule), so what they all saw is one
finding naming every tool (``review.findings.grouping``). Which rule names which class is
each tool's descriptor's word (``defects`` in the sensor manifests); a rule no descriptor
classes is its own class, as before.

A *unit-wide* class is one defect of the whole unit wherever its hits are: a test run
broken by one change is one finding however many tests fail.
"""

from __future__ import annotations

from typing import Final

SECRET: Final = "hardcoded-secret"
UNDEFINED_NAME: Final = "undefined-name"
UNUSED_NAME: Final = "unused-name"
SWALLOWED_EXCEPTION: Final = "swallowed-exception"
UNTESTED_LINES: Final = "untested-lines"
BROKEN_TEST_RUN: Final = "broken-test-run"
UNFORMATTED: Final = "unformatted"  # a formatter's finding and a linter's formatting rule

# the sensors' own rules (not a tool's) -> defect class; each tool's rules are in its
# descriptor (``defects`` in the sensor manifests, ``sensors.descriptors``)
SENSOR_RULE_CLASSES: Final[dict[str, str]] = {
    "coverage/file-below-threshold": UNTESTED_LINES,
    "coverage/changed-below-threshold": UNTESTED_LINES,
    "coverage/tests-failed": BROKEN_TEST_RUN,
}
# every finding of these sensors is of one class (detect-secrets names its detectors,
# not a code), except the rules that say the sensor could not look
SENSOR_CLASSES: Final[dict[str, str]] = {"secret-scan": SECRET}
NOT_A_DEFECT: Final = frozenset({"too-large", "timed-out", "secret-scan/unverified"})
UNIT_WIDE: Final = frozenset({BROKEN_TEST_RUN})


def defect_class(rule: str | None, check: str | None) -> str | None:
    """The defect class a sensor's rule names; None for a rule outside the table."""
    if rule in NOT_A_DEFECT:
        return None
    if check in SENSOR_CLASSES:
        return SENSOR_CLASSES[check]
    if (own := SENSOR_RULE_CLASSES.get(rule or "")) is not None:
        return own
    # the descriptors only when a tool's rule is asked, from their sealed memo when this
    # machine has read them (``review.source.tool_names``): a gate replaying the pass's
    # sensor results parses no sensor manifest
    from aidlc_review.review.source.tool_names import tool_names

    return tool_names().defects.get(rule or "")


def is_secret(rule: str | None, check: str | None) -> bool:
    return defect_class(rule, check) == SECRET
