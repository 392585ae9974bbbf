"""``review.record.upstream_receipt``: upstream's own log tool records each pass, READY twice."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from aidlc_review.review.record.models import FindingsDocument
from aidlc_review.review.record.upstream_receipt import LOG_TOOL, record_upstream_review

TOOL = f"aidlc/tools/{LOG_TOOL}"
# Stands in for bun: logs its arguments and where it ran, then exits as $FAKE_BUN_EXIT says.
FAKE_BUN = """#!{python}
import json, os, sys
with open({log!r}, "a") as out:
    out.write(json.dumps({{"argv": sys.argv[1:], "cwd": os.getcwd()}}) + "\\n")
code = int(os.environ.get("FAKE_BUN_EXIT", "0"))
if code:
    print("  no intent is active  ", file=sys.stderr)
sys.exit(code)
"""


def _pass(attempt: int, number: int) -> dict:
    return {
        "attempt": attempt,
        "pass": number,
        "verdict": "NOT-READY",
        "source_fingerprint": "sha256:" + "0" * 64,
        "reviewer": {"agent": "builtin", "status": "answered"},
        "findings": [],
        "checks": [],
    }


def _doc(verdict: str, passes: list[tuple[int, int]], attempt: int = 1) -> FindingsDocument:
    return FindingsDocument.model_validate(
        {
            "unit": "u1",
            "attempt": attempt,
            "verdict": verdict,
            "passes": [_pass(a, n) for a, n in passes],
            "checks": [],
        }
    )


@pytest.fixture
def harness(tmp_path: Path) -> Path:
    """An upstream project's harness folder holding upstream's log tool."""
    folder = tmp_path / "project" / "aidlc"
    (folder / "tools").mkdir(parents=True)
    (folder / "tools" / LOG_TOOL).write_text("// upstream's log tool\n")
    return folder


@pytest.fixture
def bun(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake bun named by $AIDLC_BUN; returns the log of its runs."""
    log = tmp_path / "bun-runs.jsonl"
    program = tmp_path / "bin" / "fake-bun"
    program.parent.mkdir()
    program.write_text(FAKE_BUN.format(python=sys.executable, log=str(log)))
    program.chmod(0o755)
    monkeypatch.setenv("AIDLC_BUN", str(program))
    monkeypatch.delenv("FAKE_BUN_EXIT", raising=False)
    return log


def _runs(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def _record(harness: Path, doc: FindingsDocument, unit: str | None = "u1") -> list[str]:
    said: list[str] = []
    record_upstream_review(harness, "code-reviewer", doc, unit, said.append)
    return said


def _review_args(iteration: int, unit: str | None = "u1") -> list[str]:
    named = ["--unit", unit] if unit else []
    return ["review", "--stage", "code-review", *named, "--reviewer", "code-reviewer"] + [
        "--iteration",
        str(iteration),
    ]


def test_a_not_ready_pass_logs_only_the_review_request_with_its_iteration(harness, bun):
    said = _record(harness, _doc("NOT-READY", [(1, 1), (1, 2)]))

    assert _runs(bun) == [{"argv": [TOOL, *_review_args(2)], "cwd": str(harness.parent)}]
    assert said == ["recorded upstream's review receipt: --iteration 2"]


def test_a_ready_pass_also_logs_the_review_as_completed_ready(harness, bun):
    said = _record(harness, _doc("READY", [(1, 1)]))

    assert [run["argv"] for run in _runs(bun)] == [
        [TOOL, *_review_args(1)],
        [TOOL, *_review_args(1), "--verdict", "READY"],
    ]
    assert said == [
        "recorded upstream's review receipt: --iteration 1",
        "recorded upstream's review receipt: --verdict READY",
    ]


def test_the_iteration_counts_only_the_current_attempts_passes(harness, bun):
    _record(harness, _doc("NOT-READY", [(1, 1), (1, 2), (2, 1)], attempt=2))

    assert [run["argv"] for run in _runs(bun)] == [[TOOL, *_review_args(1)]]


def test_a_stage_level_review_names_no_unit(harness, bun):
    _record(harness, _doc("NOT-READY", [(1, 1)]), unit=None)

    assert [run["argv"] for run in _runs(bun)] == [[TOOL, *_review_args(1, unit=None)]]


def test_a_harness_without_upstreams_log_tool_records_nothing_and_says_nothing(harness, bun):
    (harness / "tools" / LOG_TOOL).unlink()

    assert _record(harness, _doc("READY", [(1, 1)])) == []
    assert _runs(bun) == []


def test_without_bun_nothing_is_recorded_and_each_command_to_run_is_said(
    harness, monkeypatch, tmp_path
):
    monkeypatch.setenv("AIDLC_BUN", str(tmp_path / "no-such-bun"))

    said = _record(harness, _doc("READY", [(1, 1)]))

    shown = f"bun {TOOL} {' '.join(_review_args(1))}"
    assert said == [
        f"upstream receipt NOT recorded (bun not found); run in {harness.parent}: {shown}",
        f"upstream receipt NOT recorded (bun not found); run in {harness.parent}: "
        f"{shown} --verdict READY",
    ]


def test_a_failing_log_tool_is_said_with_its_status_and_error_and_the_next_run_still_tried(
    harness, bun, monkeypatch
):
    monkeypatch.setenv("FAKE_BUN_EXIT", "3")

    said = _record(harness, _doc("READY", [(1, 1)]))

    shown = f"bun {TOOL} {' '.join(_review_args(1))}"
    assert len(_runs(bun)) == 2
    assert said == [
        f"upstream receipt NOT recorded ({shown} exited 3): no intent is active",
        f"upstream receipt NOT recorded ({shown} --verdict READY exited 3): no intent is active",
    ]


def test_without_aidlc_bun_the_bun_on_path_is_used(harness, bun, monkeypatch, tmp_path):
    on_path = tmp_path / "path-bin"
    on_path.mkdir()
    (on_path / "bun").symlink_to(os.environ["AIDLC_BUN"])
    monkeypatch.delenv("AIDLC_BUN")
    monkeypatch.setenv("PATH", f"{on_path}{os.pathsep}{os.environ['PATH']}")

    said = _record(harness, _doc("NOT-READY", [(1, 1)]))

    assert said == ["recorded upstream's review receipt: --iteration 1"]
    assert len(_runs(bun)) == 1


# Stands in for a newer engine's logger (docs/upstream-newer.md): the request prints the
# review slot in its JSON; the verdict call logs what the slot held when it ran.
SLOT = "aidlc/spaces/default/intents/i1/.aidlc-reviews/code-review/units/u1/a1b2/1.review.md"
FAKE_SLOT_BUN = """#!{python}
import json, os, sys
slot = os.path.join(os.getcwd(), {slot!r})
held = open(slot).read() if os.path.exists(slot) else None
with open({log!r}, "a") as out:
    out.write(json.dumps({{"argv": sys.argv[1:], "slot": held}}) + "\\n")
if "--verdict" not in sys.argv:
    print(json.dumps({{"requestId": "review:1", "reviewFile": {slot!r}}}))
"""


@pytest.fixture
def slot_bun(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    log = tmp_path / "bun-runs.jsonl"
    program = tmp_path / "bin" / "fake-slot-bun"
    program.parent.mkdir()
    program.write_text(FAKE_SLOT_BUN.format(python=sys.executable, log=str(log), slot=SLOT))
    program.chmod(0o755)
    monkeypatch.setenv("AIDLC_BUN", str(program))
    return log


def test_a_logger_handing_out_a_slot_gets_the_review_written_there_before_the_verdict(
    harness, slot_bun
):
    said = _record(harness, _doc("READY", [(1, 1)]))

    request, verdict = _runs(slot_bun)
    assert request["slot"] is None  # the request opens the slot; nothing was there before
    review = verdict["slot"]
    assert [line for line in review.splitlines() if line.startswith("**")] == [
        "**Reviewer:** code-reviewer",
        "**Iteration:** 1",
        "**Verdict:** READY",
    ]
    assert review.startswith("## Review\n") and "\n### Findings\n" in review
    assert f"wrote the engine's review at its slot: {SLOT}" in said
    assert said[-1] == "recorded upstream's review receipt: --verdict READY"


def test_a_slot_leading_outside_the_project_is_refused_and_no_verdict_is_recorded(
    harness, tmp_path, monkeypatch
):
    log = tmp_path / "runs.jsonl"
    program = tmp_path / "bin" / "fake-slot-bun"
    program.parent.mkdir()
    program.write_text(FAKE_SLOT_BUN.format(python=sys.executable, log=str(log), slot="../x.md"))
    program.chmod(0o755)
    monkeypatch.setenv("AIDLC_BUN", str(program))

    said = _record(harness, _doc("READY", [(1, 1)]))

    assert [run["argv"][-1] for run in _runs(log)] == ["1"]  # the request only
    assert "not a path inside the project" in said[-1]
    assert not (tmp_path / "x.md").exists()
