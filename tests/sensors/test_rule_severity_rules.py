"""Spec of ``sensors.rule_severity``: one severity per rule id, from the tools' descriptors,
the workspace's overrides and the floors they cannot go below. Pure (``make mutation``): no
ruff run here."""

from __future__ import annotations

import pytest

from aidlc_review.errors import InvalidInput
from aidlc_review.harness.definitions.sensor import SensorManifest, SeverityGroup
from aidlc_review.sensors.descriptors import shipped_manifests, where_tests_are
from aidlc_review.sensors.rule_severity import (
    DEFAULT,
    LEVELS,
    Overrides,
    RuleGroup,
    below,
    default_test_files,
    floors,
    groups,
    groups_of,
    is_default_test_file,
    rank,
    table,
    table_key,
)

APP = "src/orders/app.py"
TEST = "tests/test_app.py"


def test_levels_rank_critical_over_major_over_minor_over_off() -> None:
    assert LEVELS == ("critical", "major", "minor", "off")
    assert [rank(level) for level in LEVELS] == [4, 3, 2, 1]


def test_below_a_floor_is_strictly_less_severe_and_no_floor_is_never_below() -> None:
    assert below("minor", "major")
    assert below("off", "minor")
    assert not below("major", "major")
    assert not below("critical", "major")
    assert not below("off", None)


def test_each_rule_is_found_by_its_exact_code_in_one_group() -> None:
    assert table()["S608"].severity == "major"
    assert table()["F401"] is table()["F841"]
    assert "F" not in table() and "S6" not in table()
    assert sum(len(g.codes) for g in groups()) == len(table())


def test_a_group_with_an_unknown_level_is_refused() -> None:
    for wrong in (
        {"severity": "severe"},
        {"in_tests": "blocker"},
        {"floor": "high"},
        {"floor_in_tests": "low"},
    ):
        levels = {"severity": "major", "in_tests": "minor", **wrong}
        with pytest.raises(AssertionError):
            RuleGroup("g", ("X1",), **levels)  # type: ignore[arg-type]
    assert RuleGroup("g", ("X1",), "off", "off", "minor", "off").floor == "minor"


def test_floors_list_only_the_rules_that_have_one() -> None:
    assert floors()["S608"] == "major" and floors()["E999"] == "critical"
    assert floors(in_tests=True) == {
        code: "critical" for code in ("E902", "E999", "invalid-syntax", "syntax")
    }
    assert "F401" not in floors()
    assert all(table()[code].floor == level for code, level in floors().items())


def test_without_overrides_the_table_decides_and_tests_have_their_own_column() -> None:
    plain = Overrides()
    assert plain.resolve("S101", APP) == "minor"
    assert plain.resolve("S101", TEST) == "off"
    assert plain.resolve("S301", APP) == "major"
    assert plain.resolve("S301", TEST) == "minor"
    assert plain.resolve("F401", TEST) == "major"


def test_a_rule_not_in_the_table_is_minor_everywhere() -> None:
    assert DEFAULT == "minor"
    assert Overrides().resolve("C901", APP) == "minor"
    assert Overrides().resolve("C901", TEST) == "minor"


def test_test_files_are_found_by_the_descriptors_globs_or_the_workspaces() -> None:
    plain = Overrides()
    assert plain.test_files == default_test_files()
    for path in ("pkg/test_x.py", "pkg/x_test.py", "conftest.py", "a/tests/b.py", "test/c.py"):
        assert plain.is_test(path), path
    assert not plain.is_test("src/testing.py")
    own = Overrides(test_files=("checks/**",))
    assert own.is_test("checks/a.py") and not own.is_test("tests/test_a.py")


def test_a_rule_override_applies_everywhere_and_a_tests_override_only_in_tests() -> None:
    over = Overrides(rules={"C901": "major"}, tests={"C901": "off"})
    assert over.resolve("C901", APP) == "major"
    assert over.resolve("C901", TEST) == "off"
    assert Overrides(tests={"S101": "minor"}).resolve("S101", APP) == "minor"
    assert Overrides(tests={"F401": "minor"}).resolve("F401", APP) == "major"
    assert Overrides(tests={"F401": "minor"}).resolve("F401", TEST) == "minor"


def test_a_path_override_applies_where_its_glob_matches_and_the_later_glob_wins() -> None:
    paths = {"src/**": {"F401": "minor"}, "src/orders/**": {"F401": "off"}}
    over = Overrides(paths=paths)
    assert over.resolve("F401", APP) == "off"
    assert over.resolve("F401", "src/other.py") == "minor"
    assert over.resolve("F401", "lib/x.py") == "major"
    assert over.resolve("F841", APP) == "major"  # a glob's other rules only
    # a path beats the rule and tests overrides
    both = Overrides(
        rules={"F401": "critical"}, tests={"F401": "off"}, paths={"tests/**": {"F401": "minor"}}
    )
    assert both.resolve("F401", TEST) == "minor"


def test_no_override_goes_below_a_floor_outside_or_inside_tests() -> None:
    low = Overrides(rules={"S608": "minor", "E999": "off"}, paths={"**": {"S301": "off"}})
    assert low.resolve("S608", APP) == "major"
    assert low.resolve("E999", APP) == "critical"
    assert low.resolve("S301", APP) == "major"
    # in tests only the in-tests floors hold: S608 has none there
    assert low.resolve("S608", TEST) == "minor"
    assert low.resolve("E999", TEST) == "critical"
    # a floor never lowers: above it the override stands
    assert Overrides(rules={"S608": "critical"}).resolve("S608", APP) == "critical"


def test_settings_become_overrides_and_empty_settings_the_defaults() -> None:
    assert Overrides.from_settings(None) == Overrides()
    assert Overrides.from_settings({}) == Overrides()
    read = Overrides.from_settings(
        {
            "test_files": ["checks/**"],
            "rules": {"C901": "major"},
            "tests": {"S101": "minor"},
            "paths": {"src/**": {"F401": "minor"}},
        }
    )
    assert read == Overrides(
        ("checks/**",), {"C901": "major"}, {"S101": "minor"}, {"src/**": {"F401": "minor"}}
    )
    partial = Overrides.from_settings({"rules": {"C901": "major"}, "test_files": []})
    assert partial == Overrides(default_test_files(), {"C901": "major"}, {}, {})


def test_the_cache_key_holds_every_override_with_the_path_globs_in_their_order() -> None:
    over = Overrides(
        ("t/**",),
        {"b": "minor", "a": "major"},
        {"d": "off", "c": "minor"},
        {"z/**": {"y": "off", "x": "minor"}, "a/**": {"x": "major"}},
    )
    assert over.key() == [
        ["t/**"],
        [("a", "major"), ("b", "minor")],
        [("z/**", [("x", "minor"), ("y", "off")]), ("a/**", [("x", "major")])],
        [("c", "minor"), ("d", "off")],
        table_key(),
    ]
    assert Overrides().key() == [list(default_test_files()), [], [], [], table_key()]


def _with_severities(tool: str, *extra: SeverityGroup) -> list[SensorManifest]:
    """The shipped manifests, with ``extra`` groups on the linter's first ``tool``."""
    manifests = list(shipped_manifests())
    for index, manifest in enumerate(manifests):
        if manifest.id == "linter" and manifest.runner is not None:
            tools = list(manifest.runner.tools)
            first = next(i for i, spec in enumerate(tools) if spec.tool == tool)
            spec = tools[first]
            tools[first] = spec.model_copy(update={"severities": [*spec.severities, *extra]})
            runner = manifest.runner.model_copy(update={"tools": tools})
            manifests[index] = manifest.model_copy(update={"runner": runner})
    return manifests


EVAL = SeverityGroup(
    title="debugging output", codes=["no-console"], severity="major", in_tests="minor"
)


def test_a_tools_groups_are_keyed_by_the_rule_ids_its_findings_hold() -> None:
    found = groups_of(_with_severities("eslint", EVAL))
    assert found[: len(groups())] == groups()
    assert found[len(groups()) :] == (
        RuleGroup("debugging output", ("eslint:no-console",), "major", "minor"),
    )
    assert groups_of(shipped_manifests()) == groups()


def test_a_rule_id_in_two_groups_is_refused_naming_where() -> None:
    again = SeverityGroup(title="again", codes=["S608"], severity="minor", in_tests="minor")
    with pytest.raises(InvalidInput) as refused:
        groups_of(_with_severities("ruff", again))
    said = str(refused.value)
    assert said.startswith("sensors/aidlc-linter.md: runner.tools[0] (ruff).severities: 'S608'")
    assert said.endswith(
        "already has a severity in sensors/aidlc-linter.md: runner.tools[0] (ruff).severities"
    )
    assert groups_of(_with_severities("eslint", again.model_copy(update={"codes": ["S608"]})))


def test_a_given_table_decides_over_the_tools_level_and_its_floors_hold() -> None:
    by_id = {"eslint:no-eval": RuleGroup("eval", ("eslint:no-eval",), "major", "minor", "major")}
    over = Overrides(rules={"eslint:no-eval": "off"}, severities=by_id)
    assert over.tuned("eslint:no-eval", APP, "minor") == "major"  # the floor
    assert over.tuned("eslint:no-eval", TEST, "critical") == "off"  # no floor in tests
    assert Overrides(severities=by_id).tuned("eslint:no-eval", TEST, "critical") == "minor"
    assert Overrides(severities=by_id).tuned("eslint:no-console", APP, "critical") == "critical"
    assert Overrides(severities=by_id).resolve("S608", APP) == "minor"  # not in this table
    assert Overrides().tuned("S608", APP, "off") == "major"  # the shipped table's
    assert Overrides(severities=by_id) == Overrides()  # the table is not an override


def test_the_table_key_follows_what_the_table_says() -> None:
    assert table_key() == table_key(table())
    assert len(table_key()) == 64
    one = {"X1": RuleGroup("x", ("X1",), "major", "minor")}
    assert table_key(one) != table_key({"X1": RuleGroup("x", ("X1",), "major", "off")})
    assert table_key(one) != table_key({"X2": RuleGroup("x", ("X1",), "major", "minor")})
    assert table_key(one) == table_key(dict(one))
    assert Overrides(severities=one).key()[-1] == table_key(one)


def test_the_default_test_files_are_the_descriptors_and_match_as_globs() -> None:
    assert default_test_files() == where_tests_are()
    assert is_default_test_file("a/tests/b.py") and is_default_test_file("src/a.test.ts")
    assert not is_default_test_file("src/testing.py")


def test_a_manifest_without_a_runner_has_no_severities() -> None:
    linter = next(m for m in shipped_manifests() if m.id == "linter")
    assert groups_of([linter.model_copy(update={"runner": None})]) == ()
    assert groups_of([linter]) == groups()  # the linter's ruff holds the whole shipped table
