"""A reviewer finding keeps its identity when only numbers in its wording change.

Reviewers quote line numbers ("line 12") in their prose; code moves between passes.
The fingerprint blanks numbers so the same finding keeps its CR-NNN ID.
"""

from __future__ import annotations

from aidlc_review.review.findings.ledger import reviewer_fingerprint


def test_numbers_in_the_wording_do_not_change_the_fingerprint():
    first = reviewer_fingerprint("src/app.py", "correctness", "Off by one at line 12 (loop 1)")
    moved = reviewer_fingerprint("src/app.py", "correctness", "Off by one at line 40 (loop 2)")
    assert first == moved


def test_spacing_and_case_do_not_change_the_fingerprint():
    assert reviewer_fingerprint("a.py", "security", "SQL built  from input") == (
        reviewer_fingerprint("a.py", "security", "  sql built from\ninput ")
    )


def test_other_words_path_or_category_make_a_different_finding():
    base = reviewer_fingerprint("a.py", "correctness", "Off by one at line 12")
    assert reviewer_fingerprint("a.py", "correctness", "Off by two at line 12") != base
    assert reviewer_fingerprint("b.py", "correctness", "Off by one at line 12") != base
    assert reviewer_fingerprint("a.py", "security", "Off by one at line 12") != base


def test_the_fingerprint_is_a_short_sha256():
    value = reviewer_fingerprint("a.py", "correctness", "text")
    assert value.startswith("sha256:") and len(value) == len("sha256:") + 32
