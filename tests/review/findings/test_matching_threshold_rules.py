"""Spec of ``review.findings.matching`` at its edges: the threshold is inclusive, and an earlier
finding of another file or category is skipped, not the end of the search. Pure."""

from __future__ import annotations

from aidlc_review.review.findings.matching import SIMILARITY, pair_by_text, similarity

PATH = "src/orders/app.py"


def test_texts_exactly_as_alike_as_the_threshold_pair() -> None:
    assert similarity("abcde", "abcdx") == SIMILARITY == 0.8
    assert pair_by_text([(PATH, "correctness", "abcde")], [(PATH, "correctness", "abcdx")]) == {
        0: 0
    }
    # one letter less alike: below the threshold, no pair
    assert similarity("abcde", "abcxy") < SIMILARITY
    assert pair_by_text([(PATH, "correctness", "abcde")], [(PATH, "correctness", "abcxy")]) == {}


def test_an_earlier_finding_of_another_file_or_category_is_skipped_and_the_search_goes_on() -> None:
    text = "total() divides by zero when the cart is empty"
    earlier = [
        ("src/orders/other.py", "correctness", text),
        (PATH, "performance", text),
        (PATH, "correctness", text),
    ]
    assert pair_by_text([(PATH, "correctness", text)], earlier) == {0: 2}
    assert pair_by_text([(PATH, "security", text)], earlier) == {}
