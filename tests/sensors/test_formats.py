"""A parser per report format: each reads the real tools' output into hits at their file and
line, and an unreadable report is an error, never a pass."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aidlc_review.sensors.context import SensorError
from aidlc_review.sensors.formats import Hit, gnu_text, go_test_json

GO_VET = """\
# example.com/orders/svc
# [example.com/orders/svc]
svc/total.go:15:2: self-assignment of sum to sum
vet: svc/other.go:3:1: unreachable code
"""


def test_gnu_diagnostics_are_read_from_compilers_and_checkers() -> None:
    text = GO_VET + "src/a.c:4: warning: unused variable 'x'\nmake: *** [all] Error 1\n"
    assert gnu_text(text) == [
        Hit("svc/total.go", 15, None, "self-assignment of sum to sum", "error"),
        Hit("svc/other.go", 3, None, "unreachable code", "error"),
        Hit("src/a.c", 4, None, "unused variable 'x'", "warning"),
    ]


def events(*items: dict) -> str:
    return "".join(json.dumps(item) + "\n" for item in items)


def test_a_failed_go_test_is_a_hit_at_the_line_its_output_names(tmp_path: Path) -> None:
    report = tmp_path / "report"
    pkg = "example.com/orders/svc"
    report.write_text(
        events(
            {"Action": "run", "Package": pkg, "Test": "TestTotal"},
            {"Action": "output", "Package": pkg, "Test": "TestTotal", "Output": "=== RUN\n"},
            {"Action": "output", "Package": pkg, "Test": "TestTotal",
             "Output": "    total_test.go:7: Total = 5, want 6\n"},
            {"Action": "fail", "Package": pkg, "Test": "TestTotal"},
            {"Action": "pass", "Package": pkg, "Test": "TestOther"},
            {"Action": "fail", "Package": pkg},
        )
    )  # fmt: skip
    assert go_test_json(report) == [
        Hit(f"{pkg}/total_test.go", 7, "TestTotal", "Total = 5, want 6", "error")
    ]


def test_a_go_package_that_fails_to_build_is_a_hit_at_its_first_diagnostic(tmp_path: Path):
    report = tmp_path / "report"
    target = "example.com/orders/svc [example.com/orders/svc.test]"
    report.write_text(
        events(
            {"ImportPath": target, "Action": "build-output", "Output": "# orders/svc\n"},
            {"ImportPath": target, "Action": "build-output",
             "Output": "svc/total.go:12:27: undefined: discount\n"},
            {"ImportPath": target, "Action": "build-fail"},
            {"Action": "fail", "Package": "example.com/orders/svc", "FailedBuild": target},
        )
    )  # fmt: skip
    assert go_test_json(report) == [
        Hit("svc/total.go", 12, "build-failed", "undefined: discount", "error")
    ]


def test_a_torn_test2json_stream_is_an_error(tmp_path: Path) -> None:
    report = tmp_path / "report"
    report.write_text('{"Action": "run", "Package": "p"}\n{"Action": "fa')
    with pytest.raises(SensorError, match="report:2: not a test2json event"):
        go_test_json(report)
