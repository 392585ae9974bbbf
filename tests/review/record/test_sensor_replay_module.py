"""``review.record.sensor_replay``: the first gate after a review replays the pass's own
sensor results; a changed byte, a forged entry or a tampered record still runs the sensors
or is refused."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

import aidlc_review.sensors as sensors
from aidlc_review.cli.main import main
from aidlc_review.review.inputs.paths import RecordPaths
from aidlc_review.review.inputs.unit import UnitContext
from aidlc_review.review.record.proof import prove_unit
from aidlc_review.review.record.seal import ForgedState
from aidlc_review.review.record.sensor_replay import (
    inputs_digest,
    replayed_or_run,
    whole_program_first,
)
from aidlc_review.sensors.cache import default_cache_dir
from tests.review.workspace import (
    CLEAN,
    LINT_ERROR,
    UNIT,
    git,
    make_workspace,
    review_args,
    write,
)

APP = "src/orders/app.py"


@pytest.fixture
def ran(monkeypatch) -> list[list[str]]:
    """The sensors each real ``run_sensors`` call ran (the real call, counted)."""
    calls: list[list[str]] = []
    real = sensors.run_sensors

    def counted(workspace, files, manifests, **kwargs):  # type: ignore[no-untyped-def]
        calls.append([m.id for m in manifests])
        return real(workspace, files, manifests, **kwargs)

    monkeypatch.setattr(sensors, "run_sensors", counted)
    return calls


def _reviewed(
    tmp_path: Path, source: str, code: int, ran: list[list[str]], base: bool = True
) -> RecordPaths:
    """A workspace whose unit changed its file to ``source``, reviewed once; ``base``: with
    ``base-revision`` configured (the commit before the change)."""
    ws = make_workspace(tmp_path / "ws", {APP: CLEAN})
    if base:
        pyproject = ws / "pyproject.toml"
        write(pyproject, pyproject.read_text() + '\n[tool.aidlc-review]\nbase-revision = "main"\n')
        git(ws, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qam", "base")
    write(ws / APP, source)
    assert main(review_args(ws)) == code
    ran.clear()  # the pass's own runs (the claimed files now, and at the base)
    return RecordPaths.resolve(ws, UNIT)


def test_the_first_gate_after_a_review_runs_no_sensor_again(tmp_path, capsys, ran) -> None:
    paths = _reviewed(tmp_path, CLEAN, 0, ran)
    proof = prove_unit(paths)
    assert ran == []
    assert proof.ready


def test_a_replayed_blocking_finding_still_blocks(tmp_path, capsys, ran) -> None:
    paths = _reviewed(tmp_path, LINT_ERROR, 1, ran)
    proof = prove_unit(paths)
    assert ran == []
    assert proof.blocking and not proof.ready


def test_the_replay_gives_the_gate_what_running_the_sensors_gives(tmp_path, capsys, ran) -> None:
    paths = _reviewed(tmp_path, LINT_ERROR, 1, ran)
    replayed = prove_unit(paths)
    (default_cache_dir() / "results.sqlite3").unlink()  # nothing kept: the sensors run
    recomputed = prove_unit(paths)
    assert ran != []
    assert [(f.id, f.status, f.severity) for f in replayed.blocking] == [
        (f.id, f.status, f.severity) for f in recomputed.blocking
    ]
    assert replayed.verdict == recomputed.verdict and replayed.unproven == recomputed.unproven


def test_any_byte_git_can_see_outside_the_record_or_another_base_changes_the_inputs(
    tmp_path, capsys, ran
) -> None:
    paths = _reviewed(tmp_path, CLEAN, 0, ran)
    harness = UnitContext.load(paths, None, "gated").harness

    def inputs() -> str | None:
        return inputs_digest(paths, harness, [APP], {"base_revision": "main"})

    before = inputs()
    write(paths.findings.parent / "notes.md", "written by the pass, after its sensors\n")
    assert inputs() == before is not None
    write(paths.workspace / "tests" / "helper.py", "VALUE = 1\n")  # untracked, not ignored
    changed = inputs()
    assert changed != before
    git(
        paths.workspace,
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@example.invalid",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "main moves",
    )
    assert inputs() != changed  # "main" names another commit now


def test_sensors_given_other_settings_than_the_pass_gave_them_run_again(
    tmp_path, capsys, ran
) -> None:
    paths = _reviewed(tmp_path, CLEAN, 0, ran)
    ctx = UnitContext.load(paths, None, "gated")
    results = replayed_or_run(paths, ctx.harness, [APP], ctx.sensors, {"base_revision": "main"})
    assert ran == [[m.id for m in ctx.sensors]]
    assert [r.name for r in results] == [m.id for m in ctx.sensors]


def test_a_forged_kept_result_is_a_miss_and_the_sensor_runs(tmp_path, capsys, ran) -> None:
    paths = _reviewed(tmp_path, LINT_ERROR, 1, ran)
    db = sqlite3.connect(default_cache_dir() / "results.sqlite3")
    with db:  # an agent empties every kept result, keeping the old MAC
        rows = db.execute("SELECT key, value FROM entries WHERE key LIKE 'sensor-replay/%'")
        found = rows.fetchall()
        for key, value in found:
            tag, _, text = value.partition(":")
            emptied = text.replace('"status": "failed"', '"status": "passed"')
            db.execute("UPDATE entries SET value = ? WHERE key = ?", (f"{tag}:{emptied}", key))
    db.close()
    assert found
    proof = prove_unit(paths)
    assert ran != []
    assert proof.blocking and not proof.ready


def test_a_tampered_record_is_refused_before_anything_is_replayed(tmp_path, capsys, ran) -> None:
    paths = _reviewed(tmp_path, CLEAN, 0, ran)
    text = paths.findings.read_text().replace('"READY"', '"NOT-READY"', 1)
    paths.findings.write_text(text)
    with pytest.raises(ForgedState):
        prove_unit(paths)
    assert ran == []


def test_without_a_configured_base_the_first_gate_replays_the_pass_too(
    tmp_path, capsys, ran
) -> None:
    paths = _reviewed(tmp_path, CLEAN, 0, ran, base=False)
    assert prove_unit(paths).ready
    assert ran == []  # both sides gave the sensors the commit the sealed baseline names


def test_without_a_configured_base_a_replayed_blocking_finding_still_blocks(
    tmp_path, capsys, ran
) -> None:
    paths = _reviewed(tmp_path, LINT_ERROR, 1, ran, base=False)
    proof = prove_unit(paths)
    assert ran == []
    assert proof.blocking and not proof.ready


def test_a_pass_starts_its_whole_program_checks_first_and_records_the_plans_order(
    tmp_path, capsys, ran
) -> None:
    from aidlc_review.sensors.registry import FILE_LOCAL

    started = ran
    ws = make_workspace(tmp_path / "ws", {APP: LINT_ERROR})
    assert main(review_args(ws)) == 1
    paths = RecordPaths.resolve(ws, UNIT)
    plan = UnitContext.load(paths, None, "gated").sensors
    per_file = {m.id for m in plan if m.runner is not None and m.runner.name in FILE_LOCAL}
    order = started[0]
    assert sorted(order) == sorted(m.id for m in plan)
    assert order.index("type-check") < min(order.index(i) for i in per_file)
    assert order == [plan[i].id for i in whole_program_first(plan)]
    # what the record says, and what the gate replays, is in the plan's order
    recorded = [c["name"] for c in json.loads(paths.findings.read_text())["checks"]]
    assert recorded[: len(plan)] == [m.id for m in plan]
    assert prove_unit(paths).blocking


def test_whole_program_first_keeps_the_plans_order_within_each_kind(tmp_path, capsys) -> None:
    ws = make_workspace(tmp_path / "ws", {APP: CLEAN})
    plan = UnitContext.load(RecordPaths.resolve(ws, UNIT), None, "gated").sensors
    order = whole_program_first(plan)
    assert sorted(order) == list(range(len(plan)))
    from aidlc_review.sensors.registry import FILE_LOCAL

    kinds = [plan[i].runner is not None and plan[i].runner.name in FILE_LOCAL for i in order]
    assert kinds == sorted(kinds)  # every whole-program check before every per-file one
    first_per_file = kinds.index(True)
    assert order[:first_per_file] == sorted(order[:first_per_file])
    assert order[first_per_file:] == sorted(order[first_per_file:])
