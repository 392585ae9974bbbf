"""Spec of ``review.findings.grouping``, what one grouped finding holds: its key and fingerprint,
which hit leads, every line once (messages only when they differ), the evidence sentence,
and a broken test run's wording and place. Pure (``make mutation``): observations in memory."""

from __future__ import annotations

import hashlib

from aidlc_review.review.findings.grouping import group_hits, group_key, parse_location
from aidlc_review.review.findings.observation import Observation
from aidlc_review.review.record.models import Location

PATH = "src/orders/app.py"
RUN = "the targeted test command exited 1: "


def hit(
    line: str | None,
    message: str = "S608 SQL built from data",
    *,
    check: str | None = "linter",
    rule: str = "S608",
    severity: str = "major",
    path: str = PATH,
    source: str = "sensor",
    advice: str = "use parameters",
) -> Observation:
    at = f" at line {line.split('-')[0]}" if line else ""
    return Observation(
        severity,  # type: ignore[arg-type]
        "security",
        path,
        line,
        message,
        f"{check} (ruff 0.6.9) reported {rule}{at}.",
        advice,
        source,  # type: ignore[arg-type]
        f"print:{check}:{rule}:{message}",
        check=check,
        rule=rule,
    )


def test_the_group_key_is_path_and_rule_or_path_and_defect_class() -> None:
    assert group_key(PATH, "F401", "linter") == f"sensor-group\x1f{PATH}\x1fF401"
    assert group_key(PATH, None, "linter") == f"sensor-group\x1f{PATH}\x1flinter:"
    assert group_key(PATH, "S105", "linter") == f"sensor-group\x1f{PATH}\x1fdefect:hardcoded-secret"
    # a unit-wide defect is one whatever file its hits name
    assert (
        group_key("tests/test_a.py", "coverage/tests-failed", "coverage")
        == "sensor-group\x1f\x1fdefect:broken-test-run"
    )


def test_the_fingerprint_digests_the_key_and_the_distinct_hits_without_their_lines() -> None:
    [merged] = group_hits([hit("9", check="security"), hit("3"), hit("12")])
    key = f"sensor-group\x1f{PATH}\x1fS608"
    prints = (
        "print:linter:S608:S608 SQL built from data",
        "print:security:S608:S608 SQL built from data",
    )
    expected = hashlib.sha256("\x1e".join((key, *prints)).encode()).hexdigest()[:32]
    assert merged.fingerprint == f"sha256:{expected}"
    assert merged.grouped is not None and merged.grouped.hit_prints == prints
    [moved] = group_hits([hit("40"), hit("1", check="security")])
    assert moved.fingerprint == merged.fingerprint


def test_a_location_is_a_line_or_a_range() -> None:
    assert parse_location("3-7") == Location(line=3, end_line=7)
    assert parse_location("12") == Location(line=12)
    assert parse_location(None) is None and parse_location("") is None


def test_the_first_line_leads_and_a_range_keeps_its_end() -> None:
    [merged] = group_hits([hit("20", "a: the later line"), hit("5-8", "b: the earlier line")])
    assert (merged.finding, merged.location) == ("b: the earlier line", "5-8")
    assert merged.grouped is not None
    assert merged.grouped.locations == (
        Location(line=5, end_line=8, message="b: the earlier line"),
        Location(line=20, message="a: the later line"),
    )


def test_one_line_and_a_range_starting_on_it_are_two_places_in_the_order_seen() -> None:
    [merged] = group_hits([hit("3-5"), hit("3")])
    assert merged.grouped is not None
    assert {(p.line, p.end_line) for p in merged.grouped.locations} == {(3, 5), (3, None)}
    assert all(p.message is None for p in merged.grouped.locations)


def test_messages_are_kept_per_line_only_when_they_differ() -> None:
    [same] = group_hits([hit("3"), hit("9")])
    assert same.grouped is not None
    assert [(p.line, p.message) for p in same.grouped.locations] == [(3, None), (9, None)]
    [differ] = group_hits([hit("3", "first wording"), hit("9", "second wording")])
    assert differ.grouped is not None
    assert [(p.line, p.message) for p in differ.grouped.locations] == [
        (3, "first wording"),
        (9, "second wording"),
    ]


def test_a_hit_without_a_line_leads_before_line_one() -> None:
    hits = [
        hit("1", "b: on line one", rule="coverage/changed-below-threshold", check="coverage"),
        hit(
            None,
            "z: the whole file",
            rule="coverage/file-below-threshold",
            check="coverage",
            severity="minor",
        ),
    ]
    [merged] = group_hits(hits)
    assert merged.finding == "z: the whole file"
    assert (merged.severity, merged.location) == ("major", "1")


def test_on_one_line_a_hit_without_a_check_leads_and_decides_a_tie_in_severity() -> None:
    hits = [
        hit("4", "named", check="Bandit", advice="the named advice"),
        hit("4", "unnamed", check=None, advice="the unnamed advice"),
    ]
    for order in (hits, hits[::-1]):
        [merged] = group_hits(order)
        assert merged.finding == "unnamed"
        assert merged.recommendation == "the unnamed advice"
        assert merged.check == "Bandit"


def test_the_check_named_is_the_first_by_name_not_the_first_by_line() -> None:
    [merged] = group_hits([hit("1", check="zeta"), hit("2", check="alpha")])
    assert merged.check == "alpha"
    [checkless] = group_hits([hit("1", check=None), hit("2", check=None)])
    assert checkless.check is None
    assert checkless.grouped is not None and checkless.grouped.checks == ()


def test_the_evidence_says_each_sensor_once_and_where() -> None:
    [two] = group_hits([hit("3"), hit("7", check="security"), hit("9")])
    assert two.evidence == (
        "linter (ruff 0.6.9) reported S608; security (ruff 0.6.9) reported S608 "
        "at 3 lines (see locations)."
    )
    [one] = group_hits([hit("3"), hit("3", check="security")])
    assert one.evidence == (
        "linter (ruff 0.6.9) reported S608; security (ruff 0.6.9) reported S608 at line 3."
    )
    [nowhere] = group_hits([hit(None, "a key", check="secret-scan", rule="AWS Access Key")])
    assert nowhere.evidence == "secret-scan (ruff 0.6.9) reported AWS Access Key."
    assert nowhere.grouped is not None and nowhere.location is None


def test_what_is_not_a_sensor_hit_on_a_line_or_of_a_class_stays_as_it_was() -> None:
    said = hit("3", source="reviewer")
    lineless = hit(None, rule="E501")
    classed = hit(None, "a key", check="secret-scan", rule="GitHub Token")
    found = group_hits([classed, said, lineless])
    assert found[:2] == [said, lineless]  # unchanged, ahead of the groups
    assert found[2].grouped is not None and found[2].finding == "a key"


def test_a_sensors_own_class_comes_before_its_rules() -> None:
    # the secret scan's findings are secrets whatever rule text they carry
    odd = hit(
        "5",
        f"{RUN}tests/test_a.py::test_x failed: boom",
        check="secret-scan",
        rule="coverage/tests-failed",
    )
    [merged] = group_hits([odd])
    assert merged.finding == f"{RUN}tests/test_a.py::test_x failed: boom"
    assert (merged.path, merged.location) == (PATH, "5")


def failing(test: str, line: int, tail: str = "assert 1 == 2") -> Observation:
    return hit(
        str(line),
        f"{RUN}{test} failed: {tail}",
        check="coverage",
        rule="coverage/tests-failed",
        path=test.split("::")[0],
    )


def test_a_run_of_one_failing_test_names_it() -> None:
    [merged] = group_hits([failing("tests/test_a.py::test_x", 4)])
    assert merged.finding == (
        f"{RUN}1 test(s) failed: tests/test_a.py::test_x; first failure: "
        "tests/test_a.py::test_x failed: assert 1 == 2"
    )


def test_ten_failing_tests_are_all_named_and_the_eleventh_is_counted() -> None:
    ten = [failing(f"tests/test_a.py::test_{n}", n + 1) for n in range(10)]
    names = ", ".join(f"tests/test_a.py::test_{n}" for n in range(10))
    [merged] = group_hits(ten)
    assert merged.finding.startswith(f"{RUN}10 test(s) failed: {names}; first failure: ")
    [more] = group_hits([*ten, failing("tests/test_a.py::test_10", 11)])
    assert more.finding.startswith(f"{RUN}11 test(s) failed: {names} and 1 more; first failure: ")


def test_a_run_whose_first_line_names_no_test_takes_the_head_of_one_that_does() -> None:
    hits = [
        hit(
            "1",
            "the targeted test command timed out",
            check="coverage",
            rule="coverage/tests-failed",
            path="tests/test_a.py",
        ),
        failing("tests/test_a.py::test_y", 2),
    ]
    [merged] = group_hits(hits)
    assert merged.finding == (
        f"{RUN}2 test(s) failed: the targeted test command timed out, tests/test_a.py::test_y; "
        "first failure: the targeted test command timed out"
    )


def test_a_run_that_names_no_test_keeps_its_own_words_and_is_nowhere() -> None:
    words = ["collection failed: ImportError", "collection failed: SyntaxError"]
    hits = [
        hit(str(n + 3), w, check="coverage", rule="coverage/tests-failed", path="tests/test_a.py")
        for n, w in enumerate(words)
    ]
    [merged] = group_hits(hits[::-1])
    assert merged.finding == "collection failed: ImportError"
    assert (merged.path, merged.location) == ("", None)
    assert merged.grouped is not None and merged.grouped.locations == ()
    assert merged.evidence == "coverage (ruff 0.6.9) reported coverage/tests-failed."


def test_a_run_is_placed_at_the_change_leaving_out_its_own_test_files_and_unchanged_files() -> None:
    test = "checks/orders_check.py::TestTotal::test_sum"
    changed = {"checks/orders_check.py": {3}, "src/app.py": {10, 12}, "src/untouched.py": set()}
    [merged] = group_hits([failing(test, 2)], changed)
    assert (merged.path, merged.location) == ("src/app.py", "10")
    # a second changed source file: the diff does not say which one broke the run
    [unsure] = group_hits([failing(test, 2)], {**changed, "src/other.py": {1}})
    assert (unsure.path, unsure.location) == ("", None)


def test_the_worst_hit_gives_severity_category_and_advice_though_a_milder_one_leads() -> None:
    milder = hit("3", "said mildly", check="linter", severity="minor", advice="mild advice")
    worse = Observation(
        "critical",
        "correctness",
        PATH,
        "9",
        "said gravely",
        "security reported S608 at line 9.",
        "grave advice",
        "sensor",
        "print:grave",
        check="security",
        rule="S608",
    )
    [merged] = group_hits([milder, worse])
    assert merged.finding == "said mildly" and merged.location == "3"
    assert (merged.severity, merged.category, merged.recommendation) == (
        "critical",
        "correctness",
        "grave advice",
    )


def test_only_the_full_stop_ends_an_evidence_sentence() -> None:
    [merged] = group_hits([hit("3", rule="PLX"), hit("4", rule="PLX")])
    assert merged.evidence == "linter (ruff 0.6.9) reported PLX at 2 lines (see locations)."
