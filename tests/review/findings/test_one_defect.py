"""One defect, one finding: what several real tools report about one defect is one finding
naming every tool that saw it, at the most severe severity (issue #23's seeded cases).

Real detect-secrets, ruff (the ``linter`` and the ``security`` lens), mypy, pytest and
coverage.py on small workspaces; ``review run`` as a user runs it.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from aidlc_review.cli.main import main
from tests.review.workspace import (
    PYPROJECT,
    findings_doc,
    make_workspace,
    report_text,
    review_args,
)

JOBS = "src/orders/jobs.py"
APP = "src/orders/app.py"
# built at run time so no token-shaped literal sits in the test sources
TOKEN = "ghp_" + "Zq3x" * 9
SEEDED = f'''"""Jobs."""

GITHUB_TOKEN = "{TOKEN}"


def run(job: object) -> int:
    try:
        return len(str(job))
    except Exception:
        pass
    return totl
'''


def commit(ws: Path, message: str) -> str:
    run = ["git", "-C", str(ws), "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run([*run, "commit", "-qam", message], check=True, capture_output=True)
    done = subprocess.run(["git", "-C", str(ws), "rev-parse", "HEAD"], capture_output=True)
    return done.stdout.decode().strip()


def findings(ws: Path) -> list[dict]:
    return findings_doc(ws)["passes"][-1]["findings"]


def test_a_token_a_swallowing_handler_and_an_undefined_name_are_three_findings(tmp_path) -> None:
    ws = make_workspace(tmp_path / "ws", {JOBS: SEEDED})
    (ws / "pyproject.toml").write_text(PYPROJECT + "\n[tool.mypy]\nstrict = false\n")
    commit(ws, "mypy configured")

    assert main(review_args(ws)) == 1

    found = {f["location"]: f for f in findings(ws)}
    assert sorted(found) == ["11", "3", "9"]
    token, handler, undefined = found["3"], found["9"], found["11"]
    # detect-secrets' detector(s) and ruff's S105: one secret, critical, by its hash only
    assert (token["severity"], token["checks"]) == ("critical", ["secret-scan", "security"])
    assert "hashed secret" in token["finding"] and "reported S105" in token["evidence"]
    # BLE001 and S110 on one handler
    assert handler["checks"] == ["security"]
    assert "reported BLE001" in handler["evidence"] and "reported S110" in handler["evidence"]
    # ruff's F821 and mypy's name-defined on one name
    assert (undefined["severity"], undefined["checks"]) == ("major", ["linter", "type-check"])
    assert "reported F821" in undefined["evidence"]
    assert "reported name-defined" in undefined["evidence"]
    record = ws / "aidlc-docs"
    assert not [p for p in record.rglob("*") if p.is_file() and TOKEN in p.read_text()]
    assert "reported by linter, type-check" in report_text(ws)


ORDERS = '"""Orders."""\n\n\ndef total(prices: list[int]) -> int:\n    return sum(prices)\n'
RENAMED = (
    '"""Orders."""\n\n\ndef sum_prices(prices: list[int]) -> int:\n'
    "    if not prices:\n        return 0\n    return sum(prices)\n"
)
STALE_CALLERS = "import src.orders.app as app\n" + "".join(
    f"\n\ndef test_{n:02d}():\n    assert app.total([{n}]) == {n}\n" for n in range(12)
)
SETTINGS = (
    '\n[tool.aidlc-review]\ntest-command = "python -m pytest -q tests"\ncoverage-threshold = 90\n'
)


def test_a_rename_breaking_twelve_tests_is_one_finding_at_the_change(tmp_path) -> None:
    files = {
        APP: ORDERS,
        "tests/test_app.py": STALE_CALLERS,
        "src/__init__.py": "",
        "src/orders/__init__.py": "",
    }
    ws = make_workspace(tmp_path / "ws", files, claims=[APP])
    (ws / "pyproject.toml").write_text(PYPROJECT + SETTINGS)
    base = commit(ws, "tests")
    (ws / APP).write_text(RENAMED)
    commit(ws, "rename total")

    assert main(review_args(ws, "--base", base)) == 1

    [broken] = [f for f in findings(ws) if f["rule"] == "coverage/tests-failed"]
    names = ", ".join(f"tests/test_app.py::test_{n:02d}" for n in range(10))
    assert broken["finding"] == (
        f"the targeted test command exited 1: 12 test(s) failed: {names} and 2 more; "
        "first failure: tests/test_app.py::test_00 failed: AttributeError: module "
        "'src.orders.app' has no attribute 'total'"
    )
    # the diff shows one changed file: the finding is there, at its first changed line
    assert (broken["path"], broken["location"], broken["status"]) == (APP, "4", "open")
    # the coverage of a run that failed measures the failure: it is not a second finding
    # (judged once the tests pass, below)
    assert [f["rule"] for f in findings(ws) if f["check"] == "coverage"] == [
        "coverage/tests-failed"
    ]

    # the callers follow the rename: the tests pass, and coverage is judged again: the
    # file's coverage and its changed lines' coverage are one finding, the major one
    (ws / "tests/test_app.py").write_text(STALE_CALLERS.replace("app.total", "app.sum_prices"))
    commit(ws, "callers follow")
    assert main(review_args(ws, "--base", base)) == 1
    open_ = [f for f in findings(ws) if f["status"] == "open"]
    [untested] = [f for f in open_ if f["check"] == "coverage" and f["path"] == APP]
    assert (untested["path"], untested["severity"]) == (APP, "major")
    assert "reported coverage/file-below-threshold" in untested["evidence"]
    assert "reported coverage/changed-below-threshold" in untested["evidence"]


GREETING = (
    '"""Greetings."""\n\n\ndef greet(name: str | None) -> str:\n'
    '    if name is None:\n        return "hello"\n    return "hello " + name.upper()\n'
)
NO_NONE_CHECK = (
    '"""Greetings."""\n\n\ndef greet(name: str | None) -> str:\n'
    '    return "hello " + name.upper()\n'
)
GREETING_TESTS = (
    "from src.orders.greet import greet\n\n\ndef test_nobody():\n"
    '    assert greet(None) == "hello"\n\n\ndef test_ada():\n'
    '    assert greet("ada") == "hello ADA"\n'
)


def test_a_removed_none_check_is_mypys_finding_naming_the_test_it_breaks(tmp_path) -> None:
    """The test's traceback runs through the line mypy reports: one defect, at mypy's line."""
    files = {
        "src/orders/greet.py": GREETING,
        "tests/test_greet.py": GREETING_TESTS,
        "src/__init__.py": "",
        "src/orders/__init__.py": "",
    }
    ws = make_workspace(tmp_path / "ws", files, claims=["src/orders/greet.py"])
    settings = SETTINGS.replace("coverage-threshold = 90", "coverage-threshold = 0")
    (ws / "pyproject.toml").write_text(PYPROJECT + "\n[tool.mypy]\n" + settings)
    base = commit(ws, "tests")
    (ws / "src/orders/greet.py").write_text(NO_NONE_CHECK)

    assert main(review_args(ws, "--base", base)) == 1

    open_ = [f for f in findings(ws) if f["status"] == "open"]
    assert [(f["check"], f["rule"], f["location"]) for f in open_] == [
        ("type-check", "union-attr", "5")
    ]
    assert "the cause of failing test tests/test_greet.py::test_nobody" in open_[0]["finding"]
