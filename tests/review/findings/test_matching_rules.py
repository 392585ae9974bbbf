"""Spec of ``review.findings.matching``: reworded reviewer findings pair one-to-one, best first,
and quoted identifiers may differ (or be left out) without breaking a pair."""

from __future__ import annotations

from difflib import SequenceMatcher

from aidlc_review.review.findings.matching import SIMILARITY, normalized, pair_by_text, similarity

PATH = "src/orders/app.py"


def said(text: str, path: str = PATH, category: str = "correctness") -> tuple[str, str, str]:
    return (path, category, text)


def test_two_restatements_of_one_earlier_finding_take_its_id_once_the_closer_one() -> None:
    earlier = [said("total() divides by zero when the cart is empty")]
    new = [
        said("total() may divide by zero when the cart is empty"),
        said("total() divides by zero when the cart is empty"),
    ]
    assert pair_by_text(new, earlier) == {1: 0}


def test_the_best_pair_goes_first_even_when_an_earlier_new_finding_would_take_it() -> None:
    earlier = [
        said("the cart total is wrong when a coupon applies"),
        said("the cart total is wrong when two coupons apply"),
    ]
    new = [
        said("the cart total is wrong when coupons apply"),  # close to both, closer to [1]
        said("the cart total is wrong when two coupons apply"),  # exactly [1]
    ]
    assert similarity(new[0][2], earlier[1][2]) > similarity(new[0][2], earlier[0][2])
    assert pair_by_text(new, earlier) == {0: 0, 1: 1}


def test_equal_scores_pair_by_position_so_the_result_is_deterministic() -> None:
    earlier = [said("unused variable"), said("unused variable")]
    new = [said("unused variable"), said("unused variable")]
    assert pair_by_text(new, earlier) == {0: 0, 1: 1}


def test_a_different_path_or_category_never_pairs_however_alike_the_text() -> None:
    earlier = [said("off by one in the page count")]
    assert pair_by_text([said("off by one in the page count", path="src/other.py")], earlier) == {}
    assert pair_by_text([said("off by one in the page count", category="tests")], earlier) == {}


def test_below_the_threshold_nothing_pairs() -> None:
    earlier = [said("SQL built from user input")]
    assert similarity("SQL built from user input", "mean() divides by zero") < SIMILARITY
    assert pair_by_text([said("mean() divides by zero")], earlier) == {}


def test_quoted_identifiers_are_left_out_for_the_second_reading() -> None:
    assert normalized("Unused import `os` (line 3)", keep_quoted=False) == "unused import"
    assert normalized("Unused import `os` (line 3)") == "unused import os"
    # a single- or double-quoted run with spaces is prose, not an identifier: it stays
    assert normalized("says 'two words' here", keep_quoted=False) == "says two words here"
    assert normalized('calls "f" twice', keep_quoted=False) == "calls twice"


def test_findings_that_differ_only_in_a_long_quoted_identifier_still_pair() -> None:
    a = "`calculate_monthly_invoice_total` is never read"
    b = "`x` is never read"
    kept = SequenceMatcher(None, normalized(a), normalized(b)).ratio()
    assert kept < SIMILARITY  # read with the identifiers, they look unrelated
    assert similarity(a, b) == 1.0
    assert pair_by_text([said(b)], [said(a)]) == {0: 0}


def test_the_higher_of_the_two_readings_counts() -> None:
    a = "`very_long_identifier_name_here` is unused"
    b = "`very_long_identifier_name_here` was unused and wrong"
    kept = SequenceMatcher(None, normalized(a), normalized(b)).ratio()
    left_out = SequenceMatcher(
        None, normalized(a, keep_quoted=False), normalized(b, keep_quoted=False)
    ).ratio()
    assert kept > left_out
    assert similarity(a, b) == kept
