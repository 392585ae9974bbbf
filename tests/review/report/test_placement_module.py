"""Spec of ``review.report.placement``: each finding's places and the unit manifest as anchor."""

from __future__ import annotations

from typing import Any

import pytest

from aidlc_review.review.record.models import Finding, FindingsDocument, Location, Receipt
from aidlc_review.review.report.placement import Place, places_of, unit_anchor

DIGEST = "sha256:" + "0" * 64
MANIFEST = "aidlc-docs/construction/u1-orders/code-generation/source-manifest.json"


def finding(path: str = "src/app.py", **extra: Any) -> Finding:
    return Finding(
        id="CR-001",
        severity="major",
        category="correctness",
        path=path,
        finding="divides by zero",
        evidence="len(values) may be 0",
        recommendation="return 0.0 for no values",
        status="open",
        source="reviewer",
        fingerprint="fp-1",
        first_seen=1,
        attempt=1,
        **extra,
    )


def document(manifest: str | None) -> FindingsDocument:
    receipt = None
    if manifest is not None:
        receipt = Receipt.model_validate(
            {
                "unit": "u1-orders",
                "attempt": 1,
                "pass": 1,
                "verdict": "READY",
                "manifest": manifest,
                "manifest_digest": DIGEST,
                "files": {},
                "unit_source_fingerprint": DIGEST,
                "sensors": [],
                "findings_digest": DIGEST,
                "baseline_digest": DIGEST,
            }
        )
    return FindingsDocument(
        unit="u1-orders", attempt=1, verdict="READY", passes=[], checks=[], receipt=receipt
    )


def test_a_finding_with_lines_has_one_place_per_line_ranked_in_order() -> None:
    lines = [
        Location(line=3),
        Location(line=7, end_line=9, message="and here"),
    ]
    assert places_of(finding(locations=lines, location="3"), MANIFEST) == [
        Place("src/app.py", 3, 3, None, 0),
        Place("src/app.py", 7, 9, "and here", 1),
    ]


def test_a_single_line_place_ends_on_the_line_it_starts_on() -> None:
    [place] = places_of(finding(locations=[Location(line=12)]), None)
    assert (place.line, place.end_line) == (12, 12)


def test_a_document_written_before_locations_is_placed_by_its_location_range() -> None:
    assert places_of(finding(location="4-5"), None) == [Place("src/app.py", 4, 5, None, 0)]
    assert places_of(finding(location="8"), None) == [Place("src/app.py", 8, 8, None, 0)]


def test_locations_win_over_the_legacy_location_when_both_are_present() -> None:
    both = finding(location="1", locations=[Location(line=20, end_line=22)])
    assert places_of(both, None) == [Place("src/app.py", 20, 22, None, 0)]


def test_a_finding_naming_a_file_but_no_line_is_placed_on_line_1_of_it() -> None:
    assert places_of(finding(path="uv.lock"), MANIFEST) == [Place("uv.lock", 1, 1, None, 0)]


def test_a_finding_on_no_file_is_placed_on_line_1_of_the_units_manifest() -> None:
    assert places_of(finding(path=""), MANIFEST) == [Place(MANIFEST, 1, 1, None, 0)]


def test_lines_without_a_file_are_not_placed_in_the_manifest_at_those_lines() -> None:
    # a line number means nothing in another file: the manifest's line 1 is used
    lost = finding(path="", locations=[Location(line=40)], location="40")
    assert places_of(lost, MANIFEST) == [Place(MANIFEST, 1, 1, None, 0)]


def test_a_finding_on_no_file_and_no_anchor_has_no_place() -> None:
    assert places_of(finding(path=""), None) == []
    assert places_of(finding(path="", location="3"), None) == []


def test_the_units_manifest_as_the_receipt_records_it_is_the_anchor() -> None:
    assert unit_anchor(document(MANIFEST)) == MANIFEST


def test_a_document_without_a_receipt_has_no_anchor() -> None:
    assert unit_anchor(document(None)) is None


@pytest.mark.parametrize(
    "manifest",
    [
        "",
        "/home/dev/ws/aidlc-docs/source-manifest.json",
        "../elsewhere/source-manifest.json",
        "aidlc-docs/../../source-manifest.json",
        "C:/ws/source-manifest.json",
    ],
)
def test_a_manifest_outside_the_workspace_is_no_anchor(manifest: str) -> None:
    assert unit_anchor(document(manifest)) is None


def test_a_relative_manifest_name_that_merely_contains_dots_is_an_anchor() -> None:
    assert unit_anchor(document("aidlc-docs/..hidden/m.json")) == "aidlc-docs/..hidden/m.json"
