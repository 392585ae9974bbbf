"""A unit's records in an intent record, in either of upstream's layouts: 2.5/2.6's
``construction/<unit>/`` and the newest ``construction/units/<unit>/`` (read in upstream's
code-generation stage, docs/upstream-newer.md). The layout is read from where the engine put
code generation's records, and the review's own paths follow it."""

from __future__ import annotations

from pathlib import Path

from aidlc_review.review.inputs.paths import RecordPaths
from aidlc_review.upstream.records import unit_folders, unit_records


def _stage(record: Path, *parts: str) -> Path:
    folder = record.joinpath("construction", *parts)
    folder.mkdir(parents=True)
    return folder


def test_a_unit_the_engine_keeps_under_construction_units_is_found_there(tmp_path):
    _stage(tmp_path, "units", "billing", "code-generation")
    _stage(tmp_path, "code-generation")  # a stage-level run's folder stays where it was

    assert unit_records(tmp_path, "billing") == tmp_path / "construction/units/billing"
    assert unit_folders(tmp_path) == {
        "billing": tmp_path / "construction/units/billing",
        "code-generation": tmp_path / "construction/code-generation",
    }


def test_a_unit_under_construction_is_found_there_as_on_2_5_and_2_6(tmp_path):
    _stage(tmp_path, "billing", "code-generation")

    assert unit_records(tmp_path, "billing") == tmp_path / "construction/billing"
    assert unit_folders(tmp_path) == {"billing": tmp_path / "construction/billing"}


def test_a_unit_named_units_in_the_older_layout_is_a_unit_not_the_container(tmp_path):
    _stage(tmp_path, "units", "code-generation")

    assert unit_records(tmp_path, "units") == tmp_path / "construction/units"
    assert unit_folders(tmp_path) == {"units": tmp_path / "construction/units"}


def test_a_unit_not_yet_written_under_the_newest_layout_falls_back_to_the_older_folder(
    tmp_path,
):
    _stage(tmp_path, "units", "billing", "code-generation")

    assert unit_records(tmp_path, "orders") == tmp_path / "construction/orders"


def test_the_reviews_own_paths_follow_the_engines_layout(tmp_path):
    workspace = tmp_path / "project"
    record = workspace / "aidlc-docs"
    generation = _stage(record, "units", "billing", "code-generation")
    (generation / "source-manifest.json").write_text("{}")

    paths = RecordPaths.resolve(workspace, "billing")

    unit = record.resolve() / "construction/units/billing"
    assert paths.manifest == unit / "code-generation/source-manifest.json"
    assert paths.stage_dir == unit / "code-review"
    assert paths.unit_dir() == unit
    assert paths.all_manifests() == [paths.manifest]
