"""Each engine's own files are judged as that engine judges them (issue #35).

The dialect is read from the engine present in the harness (``harness.engine``): here from
synthetic declarations written the way upstream's tools spell them (``write_engine``), so
these specs run without the engine; ``test_differential.py`` holds the same forms against the
real compilers of 2.5.5 and 2.6.18. A harness without an engine (the plugin's own tree) keeps
the plugin's source form, and the plugin's extension keys are judged alike everywhere.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from aidlc_review.compile.overlay import validate_with_changes
from aidlc_review.harness.definitions.dialect import SOURCE
from aidlc_review.harness.engine import read_dialect
from aidlc_review.harness.layout import HarnessLayout
from tests import engine_export
from tests.compiler.harness_factory import edit, write_engine, write_harness

BUILD = "stages/construction/build.md"
PLAN_UNITS = "stages/inception/plan-units.md"
FEATURE = "scopes/aidlc-feature.md"


def _compile(root: Path, capsys) -> tuple[int, str]:
    code = main(["compile", "--harness", str(root)])
    return code, capsys.readouterr().err


def _node(root: Path, slug: str) -> dict:
    graph = json.loads((root / "tools/data/stage-graph.json").read_text())
    return next(node for node in graph if node["slug"] == slug)


def _add(root: Path, rel: str, after: str, line: str) -> None:
    edit(root, rel, after, f"{after}{line}\n")


HARNESSES = {
    "no engine": lambda root: root,
    "engine 2.6": write_engine,
    "engine 2.5": lambda root: write_engine(
        root, "2.5.5", review_classes=None, summary_confirmations=None, ladder=None
    ),
}


@pytest.fixture
def plain(tmp_path: Path) -> Path:
    return write_harness(tmp_path / "plain")


@pytest.fixture
def engine26(tmp_path: Path) -> Path:
    return HARNESSES["engine 2.6"](write_harness(tmp_path / "engine26"))


@pytest.fixture
def engine25(tmp_path: Path) -> Path:
    return HARNESSES["engine 2.5"](write_harness(tmp_path / "engine25"))


# --- reading the dialect ---


def test_a_harness_without_an_engine_speaks_the_plugins_source_form(plain):
    assert read_dialect(plain) == SOURCE


def test_the_dialect_is_what_the_engines_own_files_declare(engine26):
    dialect = read_dialect(engine26)
    assert dialect.engine == "2.6.18"
    assert dialect.stage_review_classes == ("adversarial", "advisory")
    assert dialect.summary_confirmations == ("required", "if-present")
    assert dialect.review_caps == ("none", "advisory", "adversarial")
    assert dialect.node_review_class is True
    assert {"review_class", "summary_confirmation", "reviewer"} <= (dialect.stage_keys or set())


def test_an_engine_that_declares_no_review_classes_leaves_them_to_the_plugin(engine25):
    dialect = read_dialect(engine25)
    assert dialect.engine == "2.5.5"
    assert dialect.review_caps == SOURCE.review_caps
    assert dialect.node_review_class is False
    assert "review_class" not in (dialect.stage_keys or set())


@pytest.mark.engine
def test_the_real_engine_declares_what_its_compiler_takes():
    dialect = read_dialect(engine_export.require() / ".claude")
    assert dialect.engine == ".".join(map(str, engine_export.version()))
    if engine_export.version() >= (2, 6):
        assert dialect.stage_review_classes == ("adversarial", "advisory")
        assert dialect.summary_confirmations == ("required", "if-present")
        assert "none" in (dialect.review_caps or ())
    else:
        assert "summary_confirmation" not in (dialect.stage_keys or set())
        assert dialect.review_caps == SOURCE.review_caps


# --- summary_confirmation ---


@pytest.mark.parametrize("value", ["required", "if-present"])
def test_an_engine_2_6_stage_confirms_its_summary_in_words_compiled_as_written(
    engine26, capsys, value
):
    _add(engine26, BUILD, "mode: subagent\n", f"summary_confirmation: {value}")
    assert _compile(engine26, capsys)[0] == 0
    assert _node(engine26, "build")["summary_confirmation"] == value


def test_a_boolean_summary_confirmation_is_refused_where_the_engine_takes_words(engine26, capsys):
    _add(engine26, BUILD, "mode: subagent\n", "summary_confirmation: true")
    code, err = _compile(engine26, capsys)
    assert code == 2
    assert err.splitlines() == [
        f"{BUILD}:9: summary_confirmation: must be one of required, if-present "
        "(engine 2.6.18); got true"
    ]


def test_the_plugins_source_form_keeps_the_boolean(plain, capsys):
    _add(plain, BUILD, "mode: subagent\n", "summary_confirmation: required")
    code, err = _compile(plain, capsys)
    assert code == 2
    assert err.splitlines() == [
        f'{BUILD}:9: summary_confirmation: must be a boolean (true or false), got "required"'
    ]


# --- agents: maxTurns ---


@pytest.mark.parametrize("harness", HARNESSES)
def test_an_agent_may_cap_its_turns(tmp_path, capsys, harness):
    root = HARNESSES[harness](write_harness(tmp_path / "h"))
    _add(root, "agents/aidlc-dev-agent.md", "name: aidlc-dev-agent\n", "maxTurns: 60")
    assert _compile(root, capsys)[0] == 0


def test_an_agents_turn_cap_is_a_positive_integer(plain, capsys):
    _add(plain, "agents/aidlc-dev-agent.md", "name: aidlc-dev-agent\n", "maxTurns: 0")
    code, err = _compile(plain, capsys)
    assert code == 2
    assert err.splitlines() == ["agents/aidlc-dev-agent.md:3: maxTurns: must be >= 1, got 0"]


# --- scopes: review_cap ---


@pytest.mark.parametrize("cap", ["none", "advisory", "adversarial"])
def test_an_engine_2_6_scope_caps_reviews_on_its_ladder(engine26, capsys, cap):
    _add(engine26, FEATURE, "depth: Standard\n", f"review_cap: {cap}")
    assert _compile(engine26, capsys)[0] == 0


def test_a_cap_off_the_engines_ladder_is_refused_with_the_ladder_named(engine26, capsys):
    _add(engine26, FEATURE, "depth: Standard\n", "review_cap: blocking")
    code, err = _compile(engine26, capsys)
    assert code == 2
    assert err.splitlines() == [
        f"{FEATURE}:4: review_cap: must be one of none, advisory, adversarial (engine 2.6.18); "
        'got "blocking"'
    ]


def test_the_plugins_source_form_caps_with_its_own_words(plain, capsys):
    _add(plain, FEATURE, "depth: Standard\n", "review_cap: none")
    code, err = _compile(plain, capsys)
    assert code == 2
    assert err.splitlines() == [
        f'{FEATURE}:4: review_cap: must be one of blocking, advisory; got "none"'
    ]


def test_plans_speak_the_plugins_words_whatever_the_engines(engine26, capsys):
    _add(engine26, PLAN_UNITS, "mode: inline\n", "reviewer: aidlc-reviewer-agent")
    _add(engine26, FEATURE, "depth: Standard\n", "review_cap: none")
    _add(engine26, "scopes/aidlc-poc.md", "depth: Standard\n", "review_cap: advisory")
    assert _compile(engine26, capsys)[0] == 0
    plans = json.loads((engine26 / "tools/data/scope-plans.json").read_text())["scopes"]

    def review_class(scope: str, slug: str) -> str | None:
        stages = plans[scope]["gated"]["stages"]
        return next(s["review_class"] for s in stages if s["slug"] == slug)

    # cap none silences the embedded reviewer; advisory lowers it; the review stage stays
    assert review_class("feature", "plan-units") is None
    assert review_class("poc", "plan-units") == "advisory"
    assert review_class("feature", "check") == "blocking"
    assert plans["feature"]["gated"]["review_cap"] == "none"


# --- review classes ---


def test_a_reviewer_without_a_class_compiles_to_the_engines_strongest(engine26, capsys):
    _add(engine26, PLAN_UNITS, "mode: inline\n", "reviewer: aidlc-reviewer-agent")
    assert _compile(engine26, capsys)[0] == 0
    node = _node(engine26, "plan-units")
    assert (node["reviewer_max_iterations"], node["review_class"]) == (2, "adversarial")
    assert list(node).index("review_class") == list(node).index("reviewer_max_iterations") + 1


def test_a_declared_class_is_compiled_as_declared(engine26, capsys):
    _add(engine26, PLAN_UNITS, "mode: inline\n", "reviewer: aidlc-reviewer-agent")
    _add(engine26, PLAN_UNITS, "reviewer: aidlc-reviewer-agent\n", "review_class: advisory")
    assert _compile(engine26, capsys)[0] == 0
    assert _node(engine26, "plan-units")["review_class"] == "advisory"


def test_the_plugins_source_form_writes_no_class_it_was_not_given(plain, capsys):
    _add(plain, PLAN_UNITS, "mode: inline\n", "reviewer: aidlc-reviewer-agent")
    assert _compile(plain, capsys)[0] == 0
    assert "review_class" not in _node(plain, "plan-units")


def test_the_plugins_class_words_are_refused_by_an_engine_with_its_own(engine26, capsys):
    _add(engine26, PLAN_UNITS, "mode: inline\n", "reviewer: aidlc-reviewer-agent")
    _add(engine26, PLAN_UNITS, "reviewer: aidlc-reviewer-agent\n", "review_class: blocking")
    code, err = _compile(engine26, capsys)
    assert code == 2
    assert err.splitlines() == [
        f"{PLAN_UNITS}:10: review_class: must be one of adversarial, advisory (engine 2.6.18); "
        'got "blocking"'
    ]


@pytest.mark.parametrize(
    ("harness", "word"), [("engine 2.6", "advisory"), ("no engine", "blocking")]
)
def test_a_class_without_a_reviewer_is_refused(tmp_path, capsys, harness, word):
    root = HARNESSES[harness](write_harness(tmp_path / "h"))
    _add(root, PLAN_UNITS, "mode: inline\n", f"review_class: {word}")
    code, err = _compile(root, capsys)
    assert code == 2
    assert err.splitlines() == [f"{PLAN_UNITS}:9: review_class: needs a reviewer"]


# --- keys the engine does not know; the plugin's own keys ---


def test_a_stage_key_the_engines_schema_does_not_list_is_refused_each_once(engine25, capsys):
    _add(engine25, PLAN_UNITS, "mode: inline\n", "reviewer: aidlc-reviewer-agent")
    _add(engine25, PLAN_UNITS, "reviewer: aidlc-reviewer-agent\n", "review_class: advisory")
    _add(engine25, BUILD, "mode: subagent\n", "summary_confirmation: true")
    code, err = _compile(engine25, capsys)
    assert code == 2
    assert err.splitlines() == [
        f"{BUILD}:9: summary_confirmation: unknown key: engine 2.5.5's stage schema does not "
        "list it",
        f"{PLAN_UNITS}:10: review_class: unknown key: engine 2.5.5's stage schema does not list it",
    ]


@pytest.mark.parametrize("harness", HARNESSES)
def test_the_plugins_extension_keys_are_judged_alike_under_every_engine(tmp_path, capsys, harness):
    # check.md carries reviews, repair_agent and max_passes: no engine's schema lists them
    root = HARNESSES[harness](write_harness(tmp_path / "h"))
    assert _compile(root, capsys)[0] == 0
    edit(root, "stages/construction/check.md", "gated: 2", "gated: 0")
    code, err = _compile(root, capsys)
    assert code == 2
    assert err.splitlines() == [
        "stages/construction/check.md:13: max_passes.gated: must be >= 1, got 0"
    ]


# --- the dialect travels with the harness ---


def test_a_trial_of_changes_is_judged_in_the_harness_engines_dialect(engine26):
    text = (
        (engine26 / BUILD)
        .read_text()
        .replace("mode: subagent\n", "mode: subagent\nsummary_confirmation: required\n")
    )
    validate_with_changes(HarnessLayout.at(engine26), {BUILD: text})


def test_a_changed_engine_is_never_up_to_date(engine25, capsys):
    _add(engine25, PLAN_UNITS, "mode: inline\n", "reviewer: aidlc-reviewer-agent")
    assert _compile(engine25, capsys)[0] == 0
    assert main(["compile", "--harness", str(engine25), "--check"]) == 0
    write_engine(engine25)  # the engine is upgraded to one whose nodes carry the class
    capsys.readouterr()
    assert main(["compile", "--harness", str(engine25), "--check"]) == 1
    assert '+    "review_class": "adversarial",' in capsys.readouterr().out
