"""``review.inputs.paths``: where a unit's review, its manifest and its engine state live."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aidlc_review.errors import InvalidInput
from aidlc_review.harness.layout import PROJECT_ROOT
from aidlc_review.review.inputs.paths import RecordPaths, default_record, missing_manifest

UNIT_RULE = "must be a unit name (letters, digits, '.', '_', '-')"
PLAN = PROJECT_ROOT / "tools" / "data" / "review-plan.json"
INTENT = "aidlc/spaces/default/intents/261201-orders"


def touch(path: Path, text: str = "{}\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def manifest_of(record: Path, unit: str | None) -> Path:
    construction = record / "construction"
    return (construction / unit if unit else construction) / "code-generation/source-manifest.json"


def test_a_unit_s_paths_follow_upstream_s_record_layout_under_aidlc_docs(tmp_path: Path) -> None:
    paths = RecordPaths.resolve(tmp_path, "u1-orders")
    record = tmp_path / "aidlc-docs"
    stage = record / "construction/u1-orders/code-review"
    engine = record / ".aidlc-engine/code-review/u1-orders"

    assert (paths.workspace, paths.record, paths.unit) == (tmp_path, record, "u1-orders")
    assert paths.manifest == manifest_of(record, "u1-orders")
    assert paths.unit_dir() == record / "construction/u1-orders"
    assert paths.stage_dir == stage
    assert paths.findings == stage / "code-review-findings.json"
    assert paths.report == stage / "code-review.md"
    assert paths.receipt == stage / "code-review-receipt.json"
    assert paths.engine == engine
    assert paths.baseline == engine / "baseline.json"
    assert paths.lock == engine / "unit.lock"
    assert paths.requests == engine / "requests"
    assert paths.brief("reviewer", 2, 3) == engine / "briefs/reviewer-attempt2-pass3.md"


def test_a_stage_level_run_drops_the_unit_folder_and_keeps_its_state_under_stage(
    tmp_path: Path,
) -> None:
    paths = RecordPaths.resolve(tmp_path, None)
    record = tmp_path / "aidlc-docs"

    assert paths.unit is None
    assert paths.manifest == manifest_of(record, None)
    assert paths.unit_dir() == record / "construction"
    assert paths.stage_dir == record / "construction/code-review"
    assert paths.engine == record / ".aidlc-engine/code-review/_stage"


def test_resolving_makes_every_path_absolute_and_free_of_dot_dot(
    tmp_path: Path, monkeypatch
) -> None:
    (tmp_path / "ws/sub").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "ws/sub")

    paths = RecordPaths.resolve(Path(".."), "u1", record=Path("../rec"), manifest=Path("m.json"))

    assert paths.workspace == tmp_path / "ws"
    assert paths.record == tmp_path / "ws/rec"
    assert paths.manifest == tmp_path / "ws/sub/m.json"
    assert paths.stage_dir == tmp_path / "ws/rec/construction/u1/code-review"


def test_an_explicit_record_moves_the_default_manifest_with_it(tmp_path: Path) -> None:
    paths = RecordPaths.resolve(tmp_path, "u1", record=tmp_path / "elsewhere")
    assert paths.manifest == manifest_of(tmp_path / "elsewhere", "u1")


def test_a_workspace_that_is_not_a_directory_is_refused_as_given(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput) as caught:
        RecordPaths.resolve(tmp_path / "nope", "u1")
    assert str(caught.value) == f"{tmp_path / 'nope'}: workspace directory not found"

    with pytest.raises(InvalidInput, match="workspace directory not found"):
        RecordPaths.resolve(touch(tmp_path / "file.txt"), "u1")


@pytest.mark.parametrize(
    "unit", ["", ".", "..", "../x", "a/b", "-x", "_x", "a b", "a\tb", "u1\n", "u1\n\n"]
)
def test_a_unit_that_is_not_a_plain_name_is_refused(tmp_path: Path, unit: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        RecordPaths.resolve(tmp_path, unit)
    assert str(caught.value) == f"--unit {unit!r}: {UNIT_RULE}"


@pytest.mark.parametrize("unit", ["u1", "U1.orders", "1_a-b.c", "a.."])
def test_letters_digits_dots_underscores_and_dashes_make_a_unit_name(
    tmp_path: Path, unit: str
) -> None:
    assert RecordPaths.resolve(tmp_path, unit).unit == unit


def test_the_record_is_aidlc_docs_outside_an_upstream_project(tmp_path: Path) -> None:
    assert default_record(tmp_path) == tmp_path / "aidlc-docs"


def test_the_record_is_the_active_intent_in_an_upstream_project(tmp_path: Path) -> None:
    (tmp_path / INTENT).mkdir(parents=True)

    assert default_record(tmp_path) == tmp_path / INTENT
    assert RecordPaths.resolve(tmp_path, "u1").stage_dir == (
        tmp_path / INTENT / "construction/u1/code-review"
    )


def test_an_active_intent_cursor_naming_nothing_is_refused_on_resolve(tmp_path: Path) -> None:
    intents = tmp_path / INTENT
    intents.mkdir(parents=True)
    touch(intents.parent / "active-intent", "261299-gone\n")

    with pytest.raises(InvalidInput) as caught:
        RecordPaths.resolve(tmp_path, "u1")
    assert str(caught.value) == (
        f"{intents.parent}: the active intent '261299-gone' has no directory here"
    )


def broken_install(workspace: Path) -> Path:
    """The workspace's own installed harness, whose plan records a file an upgrade removed."""
    harness = workspace / ".claude"
    (harness / "aidlc-common/stages").mkdir(parents=True)
    plan = json.loads(PLAN.read_text())
    plan["installed"] = {"added": ["agents/gone.md"], "inserted": [], "after": "code-generation"}
    touch(harness / "tools/data/review-plan.json", json.dumps(plan))
    touch(harness / "tools/data/plugin-aidlc-review.json")
    graph = [{"slug": "code-generation", "number": "3.4"}, {"slug": "code-review", "number": "3.5"}]
    touch(harness / "tools/data/stage-graph.json", json.dumps(graph))
    return harness


def test_a_broken_install_in_the_workspace_is_named_before_any_path_is_used(
    tmp_path: Path,
) -> None:
    harness = broken_install(tmp_path)

    with pytest.raises(InvalidInput) as caught:
        RecordPaths.resolve(tmp_path, "u1")
    assert str(caught.value) == (
        f"{harness}: the code-review plugin's install is broken "
        "(tools/data/plugin-aidlc-review.json records it, but agents/gone.md: gone), as after "
        "an upstream upgrade that replaced the harness. "
        f"Install again: aidlc-review install --harness {harness}"
    )


def test_an_intact_install_in_the_workspace_does_not_stop_resolving(tmp_path: Path) -> None:
    harness = broken_install(tmp_path)
    touch(harness / "agents/gone.md", "back\n")
    assert RecordPaths.resolve(tmp_path, "u1").unit == "u1"


def test_display_is_workspace_relative_inside_and_unchanged_outside(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    paths = RecordPaths.resolve(tmp_path / "ws", "u1")

    assert paths.display(paths.findings) == (
        "aidlc-docs/construction/u1/code-review/code-review-findings.json"
    )
    assert paths.display(tmp_path / "ws/src/../README.md") == "README.md"
    assert paths.display(tmp_path / "ws") == "."
    assert paths.display(tmp_path / "other/x.md") == f"{tmp_path}/other/x.md"


def test_display_follows_a_symlink_into_the_workspace(tmp_path: Path) -> None:
    (tmp_path / "ws/src").mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "ws/src")
    paths = RecordPaths.resolve(tmp_path / "ws", "u1")
    assert paths.display(tmp_path / "link/app.py") == "src/app.py"


def test_all_manifests_lists_every_unit_the_stage_level_and_the_given_one_sorted(
    tmp_path: Path,
) -> None:
    record = tmp_path / "aidlc-docs"
    units = [touch(manifest_of(record, u)) for u in ("u2-b", "u1-a")]
    stage_level = touch(manifest_of(record, None))
    given = touch(tmp_path / "custom/code-generation/source-manifest.json")
    touch(record / "construction/u3-c/code-generation/code-summary.md")  # no manifest: no unit
    touch(record / "construction/u4-d/elsewhere/source-manifest.json")  # not code generation's

    paths = RecordPaths.resolve(tmp_path, "u1-a", manifest=given)

    assert paths.all_manifests() == sorted([*units, stage_level, given])


def test_all_manifests_is_empty_without_a_record(tmp_path: Path) -> None:
    assert RecordPaths.resolve(tmp_path, "u1").all_manifests() == []


def test_a_missing_manifest_with_no_unit_anywhere_says_how_to_make_one(tmp_path: Path) -> None:
    paths = RecordPaths.resolve(tmp_path, "u1")
    assert missing_manifest(paths) == (
        f"{paths.manifest}: no source manifest for --unit u1, and no unit under "
        "aidlc-docs/construction has one: code generation writes it (docs/adopting.md), or "
        "claim files with `aidlc-review init --unit U PATH...`"
    )


def test_a_missing_manifest_names_the_units_that_have_one_and_the_likeliest(
    tmp_path: Path,
) -> None:
    record = tmp_path / "aidlc-docs"
    for unit in ("u1-orders", "u2-billing"):
        touch(manifest_of(record, unit))
    touch(manifest_of(record, None))  # the stage level is not a unit

    paths = RecordPaths.resolve(tmp_path, "u1-order")

    assert missing_manifest(paths) == (
        f"{paths.manifest}: no source manifest for --unit u1-order (did you mean 'u1-orders'?); "
        "units with one: u1-orders, u2-billing"
    )


def test_a_missing_manifest_guesses_nothing_for_a_name_unlike_any_unit(tmp_path: Path) -> None:
    touch(manifest_of(tmp_path / "aidlc-docs", "u1-orders"))
    paths = RecordPaths.resolve(tmp_path, "zzz")
    assert missing_manifest(paths) == (
        f"{paths.manifest}: no source manifest for --unit zzz; units with one: u1-orders"
    )


def test_a_missing_stage_level_manifest_says_no_unit_was_given(tmp_path: Path) -> None:
    touch(manifest_of(tmp_path / "aidlc-docs", "u1-orders"))
    paths = RecordPaths.resolve(tmp_path, None)
    assert missing_manifest(paths) == (
        f"{paths.manifest}: no source manifest for the stage level (no --unit); "
        "units with one: u1-orders"
    )
