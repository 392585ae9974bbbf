"""Spec of ``review.findings.grouping``: one defect is one finding, at its most severe severity."""

from __future__ import annotations

from aidlc_review.review.findings.grouping import NAMED_TESTS, group_hits, group_key
from aidlc_review.review.findings.ledger import merge
from aidlc_review.review.findings.observation import Observation

PATH = "src/orders/app.py"


def hit(
    check: str,
    rule: str,
    line: int | None,
    severity: str = "minor",
    message: str | None = None,
    path: str = PATH,
    category: str = "maintainability",
) -> Observation:
    said = message or f"{rule} said by {check}"
    at = f" at line {line}" if line else ""
    return Observation(
        severity,  # type: ignore[arg-type]
        category,
        path,
        str(line) if line else None,
        said,
        f"{check} (ruff 0.6.9) reported {rule}{at}.",
        f"advice of {check}",
        "sensor",
        f"sha256:{check}:{rule}:{said}",
        check=check,
        rule=rule,
    )


def test_one_rule_on_one_line_from_two_sensors_takes_the_more_severe_severity() -> None:
    for order in ((0, 1), (1, 0)):
        pair = [
            hit("linter", "S608", 7, "minor", "SQL built by concatenation"),
            hit("security", "S608", 7, "major", "SQL built by concatenation", category="security"),
        ]
        [merged] = group_hits([pair[i] for i in order])
        assert merged.severity == "major"
        # the worst report's category and advice come with its severity
        assert (merged.category, merged.recommendation) == ("security", "advice of security")
        assert merged.grouped is not None and merged.grouped.checks == ("linter", "security")


def test_critical_beats_major_beats_minor_whatever_the_sensor_names() -> None:
    hits = [
        hit("a-lens", "S608", 3, "minor"),
        hit("b-lens", "S608", 3, "critical"),
        hit("c-lens", "S608", 3, "major"),
    ]
    [merged] = group_hits(hits)
    assert merged.severity == "critical"
    assert merged.recommendation == "advice of b-lens"


def test_the_worst_report_gives_category_and_advice_even_when_it_is_not_the_first_line() -> None:
    [merged] = group_hits(
        [
            hit("linter", "S608", 3, "minor", "SQL built by concatenation"),
            hit("security", "S608", 9, "major", "SQL built by concatenation", category="security"),
        ]
    )
    assert merged.location == "3"  # the first line leads ...
    # ... but the most severe report decides what the finding is
    assert (merged.severity, merged.category) == ("major", "security")
    assert merged.recommendation == "advice of security"


def test_a_rule_outside_the_defect_table_stays_its_own_finding_per_path_and_rule() -> None:
    found = group_hits([hit("linter", "F401", 1), hit("linter", "E501", 1)])
    assert sorted(o.rule or "" for o in found) == ["E501", "F401"]


def test_an_undefined_name_from_ruff_and_mypy_is_one_finding_naming_both() -> None:
    [merged] = group_hits(
        [
            hit("linter", "F821", 12, "major", "F821 Undefined name `totl`"),
            hit("type-check", "name-defined", 12, "major", 'Name "totl" is not defined'),
        ]
    )
    assert merged.grouped is not None and merged.grouped.checks == ("linter", "type-check")
    assert [p.line for p in merged.grouped.locations] == [12]
    assert "reported F821" in merged.evidence and "reported name-defined" in merged.evidence


def test_a_secret_seen_by_two_detectors_and_ruff_is_one_critical_finding_by_hash() -> None:
    line = 4
    hits = [
        hit("secret-scan", "GitHub Token", line, "critical", "GitHub Token (hashed secret 1a2b)"),
        hit("secret-scan", "Secret Keyword", line, "critical", "Secret Keyword (hashed secret 9f)"),
        hit("linter", "S105", line, "minor", 'S105 Possible hardcoded password: "token"'),
    ]
    [merged] = group_hits(hits)
    assert merged.severity == "critical"
    assert merged.grouped is not None
    assert merged.grouped.checks == ("linter", "secret-scan")
    assert [p.line for p in merged.grouped.locations] == [line]
    assert merged.finding == "GitHub Token (hashed secret 1a2b)"


def test_one_swallowing_handler_is_one_finding_for_ble001_s110_and_e722() -> None:
    hits = [
        hit("linter", "BLE001", 9, "minor"),
        hit("security", "S110", 9, "major"),
        hit("security", "E722", 20, "minor"),
    ]
    [merged] = group_hits(hits)
    assert merged.severity == "major"
    assert merged.grouped is not None
    assert [p.line for p in merged.grouped.locations] == [9, 20]


def test_file_and_changed_lines_coverage_of_one_file_are_one_finding() -> None:
    hits = [
        hit("coverage", "coverage/file-below-threshold", None, "minor", "coverage 40% < 80%"),
        hit("coverage", "coverage/changed-below-threshold", 14, "major", "changed lines not run"),
    ]
    [merged] = group_hits(hits)
    assert merged.severity == "major"
    assert merged.location == "14"


def _failing(count: int, path: str = "tests/test_app.py") -> list[Observation]:
    return [
        hit(
            "coverage",
            "coverage/tests-failed",
            10 + n,
            "major",
            f"the targeted test command exited 1: {path}::test_{n:03d} failed: "
            "NameError: name 'total' is not defined",
            path=path,
            category="tests",
        )
        for n in range(count)
    ]


def test_a_broken_test_run_is_one_finding_naming_ten_tests_and_counting_the_rest() -> None:
    [merged] = group_hits(_failing(270))
    names = ", ".join(f"tests/test_app.py::test_{n:03d}" for n in range(NAMED_TESTS))
    assert merged.finding == (
        f"the targeted test command exited 1: 270 test(s) failed: {names} and 260 more; "
        "first failure: tests/test_app.py::test_000 failed: NameError: name 'total' is not "
        "defined"
    )
    assert (merged.path, merged.location) == ("", None)  # no base: no change to point at
    assert merged.grouped is not None and merged.grouped.locations == ()


def test_a_broken_test_run_is_placed_at_the_one_source_file_the_change_touched() -> None:
    changed = {"src/orders/app.py": {30, 31}, "tests/test_app.py": {5}}
    [merged] = group_hits(_failing(3), changed)
    assert (merged.path, merged.location) == ("src/orders/app.py", "30")
    # two source files changed: the diff does not say which broke the run
    [merged] = group_hits(_failing(3), {**changed, "src/orders/other.py": {1}})
    assert (merged.path, merged.location) == ("", None)


def test_a_broken_test_run_keeps_its_id_when_other_tests_fail_and_wherever_it_is_placed() -> None:
    first = merge([], _failing(3), attempt=1, number=1)
    again = merge(first, _failing(5), 1, 2, changed={"src/orders/app.py": {3}})
    [before] = first
    [after] = [f for f in again if f.status == "open"]
    assert after.id == before.id
    assert after.path == "src/orders/app.py"
    key = group_key(after.path, after.rule, after.check)
    assert key == group_key("", before.rule, before.check)


def test_a_secret_scan_that_could_not_look_is_not_a_secret_finding() -> None:
    from aidlc_review.review.findings.defects import defect_class, is_secret

    for rule in ("too-large", "timed-out", "secret-scan/unverified"):
        assert defect_class(rule, "secret-scan") is None
    assert is_secret("Stripe Access Key", "secret-scan")
    assert is_secret("S105", "security") and not is_secret("S608", "security")


def test_failing_tests_on_one_file_whose_runner_names_no_line_are_one_finding() -> None:
    """vitest names the helper's frame, not the spec's line: 24 such failures in one spec
    were 24 findings; they are one, as the located failures of a spec are."""
    spec = "src/__tests__/operators.test.ts"
    failures = [
        hit("coverage", "tests-failed", None, "major", f"test t{n} failed: boom", path=spec)
        for n in range(24)
    ]
    elsewhere = hit("coverage", "tests-failed", None, "major", "test x failed", path="b.test.ts")

    found = group_hits([*failures, elsewhere])

    assert sorted((f.path, f.location) for f in found) == [("b.test.ts", None), (spec, None)]
    [grouped] = [f for f in found if f.path == spec]
    assert grouped.severity == "major" and grouped.grouped is not None
    assert len(grouped.grouped.hit_prints) == 24
    assert found[0] is elsewhere  # a single unlocated hit stands as the sensor said it


def test_prettier_and_eslints_prettier_rule_on_one_file_are_one_formatting_finding() -> None:
    """The project formats through eslint too (eslint-plugin-prettier): one defect."""
    found = group_hits(
        [
            hit("formatter", "prettier", 28, "minor", path="src/helpers.ts"),
            hit("linter", "eslint:prettier/prettier", 28, "major", path="src/helpers.ts"),
        ]
    )

    [one] = found
    assert (one.path, one.location, one.severity) == ("src/helpers.ts", "28", "major")
    assert one.grouped is not None and one.grouped.checks == ("formatter", "linter")
