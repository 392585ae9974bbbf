"""Spec of ``review.findings.grouping``: which changed files are tests when a broken test run
is placed at the change: the descriptors' test globs, the same the ``Project`` uses (the
test runners' ``tests``), never a list of its own."""

from __future__ import annotations

import pytest

from aidlc_review.review.findings.grouping import group_hits
from tests.review.findings.test_grouping_rules import _failing


@pytest.mark.parametrize(
    "test_file",
    [
        "tests/test_app.py",
        "tests/support.py",  # a helper in a test folder
        "pkg/app_test.py",
        "conftest.py",
        "src/orders/app.test.ts",
        "src/orders/__tests__/app.ts",
        "test/setup.js",
        "orders/app_test.go",
    ],
)
def test_a_changed_test_file_is_not_where_a_broken_run_is_placed(test_file: str) -> None:
    changed = {"src/orders/app.py": {30, 31}, test_file: {5}}
    [merged] = group_hits(_failing(3), changed)
    assert (merged.path, merged.location) == ("src/orders/app.py", "30")


def test_a_file_outside_the_test_globs_is_source_even_when_named_like_a_test() -> None:
    changed = {"src/orders/app.py": {30}, "src/testing.py": {2}}
    [merged] = group_hits(_failing(3), changed)
    assert (merged.path, merged.location) == ("", None)  # two source files: which broke it?
