"""`review reset --unit U`: the unit's review history starts clean, the old record is kept
aside (never deleted), the reset is audited and said at the gate and by status; it approves
nothing by itself and is refused while another run holds the unit's lock."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from filelock import FileLock

from aidlc_review.cli.main import main
from tests.review.workspace import CLEAN, LINT_ERROR, findings_doc, make_workspace, review_args

UNIT = "u1-orders"
STAGE = Path("aidlc-docs/construction/u1-orders/code-review")
ENGINE = Path("aidlc-docs/.aidlc-engine/code-review/u1-orders")
HISTORY = ("code-review-findings.json", "code-review-receipt.json", "code-review.md")


def _args(verb: str, ws: Path, *extra: str) -> list[str]:
    return ["review", verb, "--workspace", str(ws), "--unit", UNIT, *extra]


def _reviewed(tmp_path: Path, source: str = LINT_ERROR) -> Path:
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": source})
    main(review_args(ws))
    return ws


def test_a_reset_keeps_the_history_aside_audits_it_and_the_next_run_starts_at_pass_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = _reviewed(tmp_path)
    before = {name: (ws / STAGE / name).read_bytes() for name in HISTORY}
    capsys.readouterr()

    assert main(_args("reset", ws, "--by", "lead@example.invalid")) == 0
    said = capsys.readouterr().out
    [kept] = (ws / ENGINE / "set-aside").glob("reset-*")
    assert said.splitlines() == [
        f"reset: the review history of {UNIT} was kept as {ENGINE / 'set-aside' / kept.name}",
        "the next `review run` starts at attempt 1, pass 1",
    ]
    assert {p.name: p.read_bytes() for p in kept.iterdir()} == before
    assert not any((ws / STAGE / name).exists() for name in HISTORY)
    [event] = [json.loads(line) for line in (ws / ENGINE / "audit.jsonl").read_text().splitlines()]
    assert {k: event[k] for k in ("event", "unit", "by", "kept")} == {
        "event": "reset",
        "unit": UNIT,
        "by": "lead@example.invalid",
        "kept": str(ENGINE / "set-aside" / kept.name),
    }

    # nothing approved by the reset itself: no review, no receipt, verify --ready refuses
    assert main(_args("verify", ws, "--ready")) == 1
    capsys.readouterr()
    assert main(_args("status", ws, "--json")) == 0
    status = json.loads(capsys.readouterr().out)
    assert (status["state"], status["resets"]) == ("not-reviewed", [event])

    assert main(review_args(ws)) == 1
    doc = findings_doc(ws)
    assert [(p["attempt"], p["pass"]) for p in doc["passes"]] == [(1, 1)]
    assert "unchanged since" not in capsys.readouterr().err


def test_the_gate_and_status_say_the_unit_was_reset(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = _reviewed(tmp_path, CLEAN)
    assert main(_args("reset", ws, "--by", "lead@example.invalid")) == 0
    assert main(review_args(ws)) == 0
    capsys.readouterr()
    assert main(_args("gate", ws, "--approve", "--by", "lead@example.invalid")) == 0
    lines = capsys.readouterr().out.splitlines()
    [kept] = (ws / ENGINE / "set-aside").glob("reset-*")
    assert lines[0] == "approved attempt 1"
    [reset] = [line for line in lines if line.startswith("reset: ")]
    assert reset.endswith(
        f" by lead@example.invalid (earlier history kept as {ENGINE / 'set-aside' / kept.name})"
    )
    assert main(_args("status", ws)) == 0
    assert reset in capsys.readouterr().out.splitlines()


def test_a_reset_is_refused_while_another_run_holds_the_units_lock(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = _reviewed(tmp_path)
    capsys.readouterr()
    with FileLock(str(ws / ENGINE / "unit.lock")):
        assert main(_args("reset", ws)) == 2
    assert (
        f"{ENGINE / 'unit.lock'}: another review of this unit is running; reset refused "
        "(try again when it has finished)"
    ) in capsys.readouterr().err
    assert all((ws / STAGE / name).is_file() for name in HISTORY)
    assert not (ws / ENGINE / "audit.jsonl").exists()


def test_nothing_to_reset_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": CLEAN})
    assert main(_args("reset", ws)) == 2
    assert f"{STAGE / 'code-review-findings.json'}: no review history to reset" in (
        capsys.readouterr().err
    )


def test_a_bad_audit_line_is_named_by_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = _reviewed(tmp_path)
    assert main(_args("reset", ws)) == 0
    with (ws / ENGINE / "audit.jsonl").open("a") as log:
        log.write("not json\n")
    capsys.readouterr()
    assert main(_args("status", ws)) == 2
    assert f"{ws / ENGINE / 'audit.jsonl'}:2: not a JSON audit event" in capsys.readouterr().err


def test_two_copies_kept_in_one_second_are_both_kept(tmp_path: Path) -> None:
    from aidlc_review.review.inputs.paths import RecordPaths
    from aidlc_review.review.run.api import keep_aside

    ws = _reviewed(tmp_path)
    paths = RecordPaths.resolve(ws, UNIT)
    first = keep_aside(paths, "reset", [paths.findings])
    (paths.findings).write_text("{}")
    second = keep_aside(paths, "reset", [paths.findings])
    assert first != second
    assert (second / "code-review-findings.json").read_text() == "{}"
    assert (first / "code-review-findings.json").read_text() != "{}"
