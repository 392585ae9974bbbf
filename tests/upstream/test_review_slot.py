"""The review slot a newer engine's logger hands out (docs/upstream-newer.md): read from the
request's JSON, the review written there in the shape the engine's verdict call reads, and
never outside the project."""

from __future__ import annotations

import json

import pytest

from aidlc_review.upstream.review_slot import (
    SlotFinding,
    SlotRefused,
    review_text,
    slot_from,
    write_slot,
)


def test_the_slot_is_the_review_file_of_the_requests_json():
    out = "note: recorded\n" + json.dumps({"requestId": "review:9", "reviewFile": "r/1.md"})

    assert slot_from(out + "\n") == "r/1.md"


def test_an_engine_handing_out_no_slot_has_none():
    assert slot_from(json.dumps({"emitted": "REVIEW_REQUESTED"})) is None
    assert slot_from("REVIEW_REQUESTED for code-review\n") is None
    assert slot_from("") is None


def test_the_review_holds_one_verdict_reviewer_and_iteration_line_and_a_findings_table():
    finding = SlotFinding("CR-001", "minor", "src/a.py:3", "a | b\n## not a heading", "open")

    text = review_text("code-reviewer", 2, "READY", "# summary", [finding])

    assert [line for line in text.splitlines() if line.startswith("**")] == [
        "**Reviewer:** code-reviewer",
        "**Iteration:** 2",
        "**Verdict:** READY",
    ]
    assert [line for line in text.splitlines() if line.startswith("#")] == [
        "## Review",
        "### Findings",
    ]
    assert "| CR-001 | minor | src/a.py:3 | a \\| b ## not a heading | open |" in text


def test_a_review_without_open_findings_says_so_in_its_table():
    assert "| - | - | - | none open | - |" in review_text("r", 1, "READY", "s", [])


def test_the_review_is_written_at_the_slot_inside_the_project(tmp_path):
    written = write_slot(tmp_path, "rec/.aidlc-reviews/s/1.review.md", "## Review\n")

    assert written == tmp_path.resolve() / "rec/.aidlc-reviews/s/1.review.md"
    assert written.read_text() == "## Review\n"


@pytest.mark.parametrize("slot", ["/etc/x.md", "../x.md", "rec/../../x.md"])
def test_a_slot_outside_the_project_is_refused(tmp_path, slot):
    with pytest.raises(SlotRefused, match="not a path inside the project"):
        write_slot(tmp_path / "project", slot, "x")


def test_a_slot_through_a_symlink_is_refused_and_nothing_is_written(tmp_path):
    (tmp_path / "project").mkdir()
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "project" / "rec").symlink_to(tmp_path / "elsewhere")

    with pytest.raises(SlotRefused, match="symlink"):
        write_slot(tmp_path / "project", "rec/1.review.md", "x")
    assert list((tmp_path / "elsewhere").iterdir()) == []
