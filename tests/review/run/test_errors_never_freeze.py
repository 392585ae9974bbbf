"""Errors never freeze: a pass whose checks could not verify is redone by the next `review run`
on the same bytes without spending the pass budget, and the finding says why and what to do.

The environment is real: the workspace's own ``.venv`` (``python -m venv``) first lacks
pytest, then gets it from pip (its cache, else PyPI): fixing it needs no reset.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from aidlc_review.review.run.engine import UNVERIFIED_ADVICE
from tests.review.workspace import PYPROJECT, findings_doc, make_workspace, review_args

CALC = "def mean(values: list[float]) -> float:\n    return sum(values) / len(values)\n"
TESTS = (
    "import sys\nsys.path.insert(0, 'src')\nfrom orders.calc import mean\n\n\n"
    "def test_mean():\n    assert mean([1.0, 3.0]) == 2.0\n"
)
SETTINGS = '\n[tool.aidlc-review]\ntest-command = "python -m pytest -q tests"\n'


@pytest.fixture(autouse=True)
def _workspace_pytest_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")


def _workspace(tmp_path: Path) -> Path:
    files = {
        "src/orders/__init__.py": "",
        "src/orders/calc.py": CALC,
        "tests/test_calc.py": TESTS,
        ".gitignore": ".venv/\n",
    }
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / ".gitignore").write_text(".venv/\n")
    make_workspace(ws, files, claims=["src/orders/__init__.py", "src/orders/calc.py"])
    (ws / "pyproject.toml").write_text(PYPROJECT + SETTINGS + "coverage-threshold = 0\n")
    commit = ["-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qam", "s"]
    subprocess.run(["git", "-C", str(ws), *commit], check=True)
    base = str(Path(sys._base_executable).resolve())
    subprocess.run([base, "-m", "venv", "--without-pip", str(ws / ".venv")], check=True)
    return ws


def _install_pytest(ws: Path) -> None:
    pip = [sys.executable, "-m", "pip", "--python", str(ws / ".venv/bin/python")]
    subprocess.run([*pip, "install", "-q", "pytest"], check=True)


def _coverage_findings(doc: dict) -> list[dict]:
    return [f for f in doc["passes"][-1]["findings"] if f["check"] == "coverage"]


def test_a_fixed_environment_is_reviewed_again_without_a_reset_or_a_spent_pass(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = _workspace(tmp_path)
    assert main(review_args(ws)) == 1
    first = findings_doc(ws)
    [unverified] = _coverage_findings(first)
    python = ws / ".venv/bin/python"
    assert unverified["finding"] == (
        "could not verify: the targeted test command `python -m pytest -q tests` exited 1 and "
        f"wrote no coverage data; the test command's interpreter {python} (the workspace's "
        f".venv) cannot import pytest: install pytest in the project environment "
        f"(`{python} -m pip install pytest`)"
    )
    assert unverified["recommendation"] == UNVERIFIED_ADVICE
    capsys.readouterr()

    _install_pytest(ws)
    assert main(review_args(ws)) == 0
    said = capsys.readouterr().err
    assert "unchanged since pass 1" not in said
    assert "pass 1 of attempt 1 could not verify (coverage): redoing it without spending" in said
    doc = findings_doc(ws)
    assert (doc["verdict"], [(p["attempt"], p["pass"]) for p in doc["passes"]]) == (
        "READY",
        [(1, 1)],
    )
    assert [c["status"] for c in doc["checks"] if c["name"] == "coverage"] == ["passed"]
    # the dropped pass is kept, and the redo is audited
    engine = ws / "aidlc-docs/.aidlc-engine/code-review/u1-orders"
    [kept] = (engine / "set-aside").glob("redone-attempt1-pass1-*/code-review-findings.json")
    assert json.loads(kept.read_text()) == first
    [event] = [json.loads(line) for line in (engine / "audit.jsonl").read_text().splitlines()]
    assert {k: event[k] for k in ("event", "attempt", "pass", "checks", "unit")} == {
        "event": "redo",
        "attempt": 1,
        "pass": 1,
        "checks": ["coverage"],
        "unit": "u1-orders",
    }


def test_an_error_that_stays_is_redone_every_run_and_never_becomes_ready(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = _workspace(tmp_path)
    for _ in range(3):  # gated: a budget of 2 passes, never spent on a pass that verified nothing
        assert main(review_args(ws)) == 1
        doc = findings_doc(ws)
        assert (doc["verdict"], len(doc["passes"])) == ("NOT-READY", 1)
    said = capsys.readouterr().err
    assert said.count("could not verify (coverage): redoing it") == 2
    assert main(["review", "verify", "--workspace", str(ws), "--unit", "u1-orders", "--ready"]) == 1


def test_a_pass_whose_checks_verified_is_not_redone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = _workspace(tmp_path)
    _install_pytest(ws)
    broken = CALC.replace(" / len(values)", "")  # a real bug: the targeted test fails
    (ws / "src/orders/calc.py").write_text(broken)
    assert main(review_args(ws)) == 1
    [failed] = _coverage_findings(findings_doc(ws))
    assert (failed["rule"], failed["recommendation"]) == (
        "coverage/tests-failed",
        "Make the failing tests pass: fix the code they exercise, or the tests (the finding "
        "quotes the test runner).",
    )
    assert "tests/test_calc.py::test_mean failed: assert 4.0 == 2.0" in failed["finding"]
    capsys.readouterr()
    assert main(review_args(ws)) == 1
    assert "unchanged since pass 1 of attempt 1: NOT-READY" in capsys.readouterr().err
    assert len(findings_doc(ws)["passes"]) == 1


def test_a_host_driven_pass_that_could_not_verify_is_redone_by_start_and_submit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The engine's conductor drives passes with `review start` / `review submit`: the pass
    that could not verify is numbered again, and submitting drops it (kept aside, audited)."""
    ws = _workspace(tmp_path)
    base = ["--workspace", str(ws), "--unit", "u1-orders"]
    answer = tmp_path / "answer.json"
    answer.write_text(json.dumps({"verdict": "READY", "summary": "Looks right.", "findings": []}))

    def host_pass() -> tuple[int, int]:
        capsys.readouterr()
        assert main(["review", "start", *base, "--json"]) == 0
        started = json.loads(capsys.readouterr().out)
        submit = ["review", "submit", *base, "--request", started["request"]]
        return started["pass"], main([*submit, "--answer", str(answer)])

    assert host_pass() == (1, 1)  # no pytest in the project's venv: could not verify
    _install_pytest(ws)
    assert host_pass() == (1, 0)  # pass 1 again, not pass 2 of a budget of 2
    doc = findings_doc(ws)
    assert (doc["verdict"], [(p["attempt"], p["pass"]) for p in doc["passes"]]) == (
        "READY",
        [(1, 1)],
    )
    engine = ws / "aidlc-docs/.aidlc-engine/code-review/u1-orders"
    events = [json.loads(line) for line in (engine / "audit.jsonl").read_text().splitlines()]
    assert [(e["event"], e["pass"], e["checks"]) for e in events] == [("redo", 1, ["coverage"])]
