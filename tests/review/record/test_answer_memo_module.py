"""``review.record.answer_memo``: a gate on bytes this machine already proved answers from
its sealed answer without building the record's models; a tampered record byte, a stale
source byte, a forged answer, one sealed under another key and a record moved by
``--record`` are refused or checked in full exactly as before."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from aidlc_review.errors import InvalidInput
from aidlc_review.review.inputs.paths import RecordPaths
from aidlc_review.review.record import proof
from aidlc_review.review.record.answer_memo import answer_key
from aidlc_review.review.record.seal import ForgedState
from aidlc_review.review.record.verify import verify_answer
from aidlc_review.sensors.cache import LABEL as CACHE_LABEL
from aidlc_review.sensors.cache import default_cache_dir
from aidlc_review.state_key import mac
from tests.review.workspace import (
    CLEAN,
    LINT_ERROR,
    UNIT,
    counted_calls,
    make_workspace,
    manifest_path,
    review_args,
    write,
)

APP = "src/orders/app.py"
HEAVY = ("pydantic", "jinja2", "detect_secrets", "ruamel", "aidlc_review.sensors.descriptors")


@pytest.fixture
def checks(monkeypatch) -> list[bool]:
    """One entry per full check (the real ``prove_unit``, counted)."""
    return counted_calls(monkeypatch, proof, "prove_unit")


def _reviewed(tmp_path: Path, source: str, code: int, *extra: str) -> Path:
    ws = make_workspace(tmp_path / "ws", {APP: source})
    assert main(review_args(ws, *extra)) == code
    return ws


def _answer(ws: Path, record: Path | None = None) -> list[str]:
    manifest = manifest_path(ws) if record is not None else None
    return verify_answer(ws, UNIT, record=record, manifest=manifest, ready=True)[1]


def _entries(db: sqlite3.Connection) -> list[tuple[str, str]]:
    rows = db.execute("SELECT key, value FROM entries WHERE key LIKE 'verify-answer/%'")
    return list(rows.fetchall())


def test_a_second_gate_on_unchanged_bytes_answers_without_the_full_check(
    tmp_path, capsys, checks
) -> None:
    ws = _reviewed(tmp_path, CLEAN, 0)
    assert _answer(ws) == []
    assert _answer(ws) == []
    assert len(checks) == 1


def test_a_remembered_refusal_is_the_same_refusal(tmp_path, capsys, checks) -> None:
    ws = _reviewed(tmp_path, LINT_ERROR, 1)
    first = _answer(ws)
    assert first and _answer(ws) == first
    assert len(checks) == 1


def test_a_tampered_record_byte_after_a_hit_is_refused(tmp_path, capsys, checks) -> None:
    ws = _reviewed(tmp_path, CLEAN, 0)
    _answer(ws)
    paths = RecordPaths.resolve(ws, UNIT)
    paths.findings.write_text(paths.findings.read_text().replace('"READY"', '"NOT-READY"', 1))
    with pytest.raises(ForgedState):
        _answer(ws)
    assert len(checks) == 2


def test_a_stale_claimed_byte_is_checked_in_full_and_refused(tmp_path, capsys, checks) -> None:
    ws = _reviewed(tmp_path, CLEAN, 0)
    assert _answer(ws) == []
    write(ws / APP, CLEAN + "\n# changed\n")
    assert any("claimed file changed" in r for r in _answer(ws))
    assert len(checks) == 2


def test_a_claimed_file_git_ignores_is_still_checked_at_a_hit(tmp_path, capsys, checks) -> None:
    files = {APP: CLEAN, ".gitignore": "*.log\n"}
    ws = make_workspace(tmp_path / "ws", files, claims=["src/orders/"])
    assert main(review_args(ws)) == 0
    assert _answer(ws) == []
    write(ws / "src" / "orders" / "new.log", "claimed by the directory, ignored by git\n")
    assert any("newly claimed" in r for r in _answer(ws))
    assert len(checks) == 2


def test_a_forged_answer_is_a_miss(tmp_path, capsys, checks) -> None:
    ws = _reviewed(tmp_path, LINT_ERROR, 1)
    assert _answer(ws)
    db = sqlite3.connect(default_cache_dir() / "results.sqlite3")
    with db:  # an agent empties the reasons, keeping the old MAC
        for key, value in _entries(db):
            tag, _, text = value.partition(":")
            forged = json.dumps({**json.loads(text), "reasons": []}, sort_keys=True)
            db.execute("UPDATE entries SET value = ? WHERE key = ?", (f"{tag}:{forged}", key))
    db.close()
    assert _answer(ws)
    assert len(checks) == 2


def test_an_answer_sealed_under_another_key_is_a_miss(tmp_path, capsys, checks) -> None:
    ws = _reviewed(tmp_path, LINT_ERROR, 1)
    assert _answer(ws)
    db = sqlite3.connect(default_cache_dir() / "results.sqlite3")
    with db:  # a READY answer sealed correctly, but under a key that is not this machine's
        for key, value in _entries(db):
            text = json.dumps(
                {**json.loads(value.partition(":")[2]), "reasons": []}, sort_keys=True
            )
            tag = mac(b"another machine's key", CACHE_LABEL + b"\0" + key.encode(), text.encode())
            db.execute("UPDATE entries SET value = ? WHERE key = ?", (f"{tag}:{text}", key))
    db.close()
    assert _answer(ws)
    assert len(checks) == 2


def test_a_record_moved_by_record_is_bound_and_its_tampering_refused(
    tmp_path, capsys, checks
) -> None:
    elsewhere = tmp_path / "records"
    ws = make_workspace(tmp_path / "ws", {APP: CLEAN})
    moved = ["--record", str(elsewhere), "--manifest", str(manifest_path(ws))]
    assert main(review_args(ws, *moved)) == 0
    assert _answer(ws, elsewhere) == []
    assert _answer(ws, elsewhere) == []
    assert len(checks) == 1
    paths = RecordPaths.resolve(ws, UNIT, elsewhere, manifest_path(ws))
    paths.receipt.write_bytes(paths.receipt.read_bytes() + b" ")  # one byte added
    with pytest.raises(ForgedState):
        _answer(ws, elsewhere)


def test_a_deleted_seal_of_the_record_is_checked_in_full(tmp_path, capsys, checks) -> None:
    ws = _reviewed(tmp_path, CLEAN, 0)
    _answer(ws)
    paths = RecordPaths.resolve(ws, UNIT)
    (paths.engine / "seals" / f"{paths.findings.name}.hmac").unlink()
    with pytest.raises(ForgedState):
        _answer(ws)


def test_a_state_key_inside_the_workspace_is_refused_at_a_hit_too(
    tmp_path, capsys, monkeypatch
) -> None:
    ws = _reviewed(tmp_path, CLEAN, 0)
    assert _answer(ws) == []
    # the same key and markers, but where the agents can read them (under .git/, so git's
    # listing, and with it every other part of the key, is what it was)
    inside = ws / ".git" / "state"
    shutil.copytree(os.environ["XDG_STATE_HOME"], inside)
    monkeypatch.setenv("XDG_STATE_HOME", str(inside))
    with pytest.raises(InvalidInput, match="outside the workspace"):
        _answer(ws)


def test_the_answer_is_kept_for_one_day(tmp_path, capsys) -> None:
    ws = _reviewed(tmp_path, CLEAN, 0)
    paths = RecordPaths.resolve(ws, UNIT)
    today = answer_key(paths, True, None, date(2026, 12, 6))
    assert today is not None
    assert answer_key(paths, True, None, date(2026, 12, 7)) != today  # a waiver may expire
    assert answer_key(paths, False, None, date(2026, 12, 6)) != today  # the tests left out


def test_a_hit_imports_no_models_templates_secret_scanner_or_sensor_manifests(
    tmp_path, capsys
) -> None:
    ws = _reviewed(tmp_path, CLEAN, 0)
    argv = ["review", "verify", "--ready", "--workspace", str(ws), "--unit", UNIT]
    assert main(argv) == 0  # the full check, remembered
    script = (
        "import sys\nfrom aidlc_review.cli.main import main\n"
        f"code = main({argv!r})\n"
        f"heavy = sorted(m for m in sys.modules if m.startswith({HEAVY!r}))\n"
        "print(code, heavy)\n"
    )
    shown = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True
    )
    assert shown.stdout.strip().splitlines()[-1] == "0 []"


# The first gate after a review: nothing kept answers it; it looks at git's listing of the
# tree once until its sensors run (``git_drift.listed_once``). A byte changed after the
# pass is still refused there, and nothing is kept for bytes the check did not see.


def _first_gate(ws: Path, ready: bool) -> list[str]:
    return verify_answer(ws, UNIT, ready=ready)[1]


@pytest.mark.parametrize("ready", [False, True])
def test_a_claimed_byte_changed_after_the_pass_is_refused_at_the_first_gate(
    tmp_path, capsys, checks, ready
) -> None:
    ws = _reviewed(tmp_path, CLEAN, 0)
    write(ws / APP, CLEAN + "\n# changed after the review\n")
    assert any("claimed file changed" in r for r in _first_gate(ws, ready))
    assert len(checks) == 1


@pytest.mark.parametrize("ready", [False, True])
def test_an_unclaimed_file_added_after_the_pass_is_refused_at_the_first_gate(
    tmp_path, capsys, checks, ready
) -> None:
    ws = _reviewed(tmp_path, CLEAN, 0)
    write(ws / "src" / "orders" / "backdoor.py", "ALLOW_ALL = True\n")
    reasons = _first_gate(ws, ready)
    assert any("backdoor.py" in r for r in reasons)
    assert _first_gate(ws, ready) == reasons  # and so it stays


@pytest.mark.parametrize("ready", [False, True])
def test_a_tampered_record_byte_after_the_pass_is_refused_at_the_first_gate(
    tmp_path, capsys, checks, ready
) -> None:
    ws = _reviewed(tmp_path, CLEAN, 0)
    paths = RecordPaths.resolve(ws, UNIT)
    paths.findings.write_text(paths.findings.read_text().replace('"READY"', '"NOT-READY"', 1))
    with pytest.raises(ForgedState):
        _first_gate(ws, ready)
    with pytest.raises(ForgedState):
        _first_gate(ws, ready)  # nothing was kept for it
    assert len(checks) == 2


def test_a_file_written_while_the_first_gates_sensors_run_keeps_no_answer(
    tmp_path, capsys, checks, monkeypatch
) -> None:
    import aidlc_review.sensors as sensors

    ws = _reviewed(tmp_path, CLEAN, 0)
    (default_cache_dir() / "results.sqlite3").unlink()  # no replay: the sensors run
    real = sensors.run_sensors

    def writing(workspace, files, manifests, **kwargs):  # type: ignore[no-untyped-def]
        results = real(workspace, files, manifests, **kwargs)
        write(workspace / "src" / "orders" / "written.py", "LATE = 1\n")  # as a test might
        return results

    monkeypatch.setattr(sensors, "run_sensors", writing)
    assert _first_gate(ws, True) == []  # the tree as the gate began: clean
    monkeypatch.setattr(sensors, "run_sensors", real)
    assert any("written.py" in r for r in _first_gate(ws, True))  # not a kept "clean"
    assert len(checks) == 2
