"""Host-driven review (start / submit) and the CLI's handling of bad input."""

from __future__ import annotations

import json

from aidlc_review.cli.main import main
from aidlc_review.review.findings.ledger import Observation, merge
from tests.review.workspace import (
    CLEAN,
    UNIT,
    findings_doc,
    make_workspace,
    manifest_path,
    review_args,
    write,
    write_manifest,
)

ANSWER = {
    "verdict": "NOT-READY",
    "summary": "Missing input validation.",
    "findings": [
        {
            "severity": "major",
            "category": "correctness",
            "path": "src/orders/app.py",
            "location": "4-5",
            "finding": "total() accepts negative prices",
            "evidence": "`return sum(prices)` runs with no check before it",
            "recommendation": "Reject negative prices with ValueError.",
        }
    ],
}


def _start(ws, capsys):
    capsys.readouterr()
    assert main(["review", "start", "--workspace", str(ws), "--unit", UNIT, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_a_host_starts_a_pass_reads_the_brief_and_submits_its_answer(tmp_path, capsys):
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": CLEAN})
    started = _start(ws, capsys)
    assert (started["attempt"], started["pass"], started["max_passes"]) == (1, 1, 2)
    brief = open(started["brief"]).read()
    assert "- `src/orders/app.py`" in brief and "## Sensor results" in brief
    answer = tmp_path / "answer.json"
    answer.write_text(json.dumps(ANSWER))
    submit = [
        "review",
        "submit",
        "--workspace",
        str(ws),
        "--unit",
        UNIT,
        "--request",
        started["request"],
        "--answer",
        str(answer),
    ]
    assert main(submit) == 1
    doc = findings_doc(ws)
    assert doc["passes"][0]["reviewer"]["agent"] == "host"
    assert [(f["id"], f["location"], f["source"]) for f in doc["passes"][0]["findings"]] == [
        ("CR-001", "4-5", "reviewer")
    ]
    assert main(submit) == 2
    assert f"--request {started['request']}: already submitted" in capsys.readouterr().err
    # The host repairs, starts pass 2, and the reviewer no longer repeats the finding.
    write(
        ws / "src/orders/app.py",
        CLEAN.replace("return sum(prices)", "return sum(max(p, 0) for p in prices)"),
    )
    second = _start(ws, capsys)
    assert "- CR-001 major correctness `src/orders/app.py`" in open(second["brief"]).read()
    resolved = [{"id": "CR-001", "reason": "negative prices are clamped"}]
    ready = {"verdict": "READY", "summary": "Fixed.", "findings": [], "resolved": resolved}
    answer.write_text(json.dumps(ready))
    assert main([*submit[:6], "--request", second["request"], "--answer", str(answer)]) == 0
    kept = findings_doc(ws)["passes"][1]["findings"][0]
    assert (kept["status"], kept["resolution"]) == ("resolved", "negative prices are clamped")


def test_submit_refuses_when_the_source_changed_after_start(tmp_path, capsys):
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": CLEAN})
    started = _start(ws, capsys)
    write(ws / "src/orders/app.py", CLEAN + "\n")
    answer = tmp_path / "answer.json"
    answer.write_text(json.dumps(ANSWER))
    assert (
        main(
            [
                "review",
                "submit",
                "--workspace",
                str(ws),
                "--unit",
                UNIT,
                "--request",
                started["request"],
                "--answer",
                str(answer),
            ]
        )
        == 1
    )
    assert capsys.readouterr().err == (
        f"--request {started['request']}: the claimed source, the manifest or the saved "
        "request changed since `review start`; run `review start` again\n"
    )
    assert not findings_doc_path(ws).exists()


def test_submit_runs_the_sensors_again_instead_of_trusting_the_request_file(tmp_path, capsys):
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": "import os\n"})
    started = _start(ws, capsys)
    saved = ws / f"aidlc-docs/.aidlc-engine/code-review/{UNIT}/requests/{started['request']}.json"
    request = json.loads(saved.read_text())
    for result in request["results"]:
        result.update(status="passed", findings=[])
    saved.write_text(json.dumps(request))
    answer = tmp_path / "answer.json"
    answer.write_text(json.dumps({"verdict": "READY", "summary": "Fine.", "findings": []}))
    argv = ["review", "submit", "--workspace", str(ws), "--unit", UNIT]
    assert main([*argv, "--request", started["request"], "--answer", str(answer)]) == 1
    [finding] = findings_doc(ws)["passes"][0]["findings"]
    assert (finding["check"], finding["rule"], finding["status"]) == ("linter", "F401", "open")


def test_submit_refuses_when_the_manifest_changed_after_start(tmp_path, capsys):
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": CLEAN, "src/keys.py": CLEAN})
    started = _start(ws, capsys)
    write_manifest(ws, ["src/orders/app.py"])
    answer = tmp_path / "answer.json"
    answer.write_text(json.dumps({"verdict": "READY", "summary": "Fine.", "findings": []}))
    argv = ["review", "submit", "--workspace", str(ws), "--unit", UNIT]
    assert main([*argv, "--request", started["request"], "--answer", str(answer)]) == 1
    assert "changed since `review start`" in capsys.readouterr().err
    assert not findings_doc_path(ws).exists()


def test_submit_refuses_a_request_whose_mode_or_harness_was_edited(tmp_path, capsys):
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": CLEAN})
    started = _start(ws, capsys)
    saved = ws / f"aidlc-docs/.aidlc-engine/code-review/{UNIT}/requests/{started['request']}.json"
    request = json.loads(saved.read_text())
    saved.write_text(json.dumps({**request, "mode": "autonomous"}))  # a bigger pass budget
    answer = tmp_path / "answer.json"
    answer.write_text(json.dumps({"verdict": "READY", "summary": "Fine.", "findings": []}))
    argv = ["review", "submit", "--workspace", str(ws), "--unit", UNIT]
    assert main([*argv, "--request", started["request"], "--answer", str(answer)]) == 1
    assert "changed since `review start`" in capsys.readouterr().err
    assert not findings_doc_path(ws).exists()


def findings_doc_path(ws):
    return manifest_path(ws).parents[1] / "code-review" / "code-review-findings.json"


def test_bad_input_exits_2_with_the_reason_and_writes_nothing(tmp_path, capsys):
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": CLEAN})
    manifest = manifest_path(ws)
    manifest.write_text(
        '{"stage": "code-generation", "version": 1, "unit": "u1-orders", '
        '"writes": [{"path": "../outside.py"}]}'
    )
    assert main(review_args(ws)) == 2
    assert capsys.readouterr().err == (
        f"{manifest}: $.writes[0].path: must not contain '..', got '../outside.py'\n"
    )
    assert not (ws / "aidlc-docs" / ".aidlc-engine").exists()
    assert main(review_args(ws, "--reviewer", "gpt")) == 2
    assert (
        capsys.readouterr().err
        == "--reviewer 'gpt': must be builtin | claude | codex | command:CMD\n"
    )
    assert main(review_args(ws, unit="u2-other")) == 2
    manifest = ws / "aidlc-docs/construction/u2-other/code-generation/source-manifest.json"
    assert capsys.readouterr().err == (
        f"{manifest}: no source manifest for --unit u2-other; units with one: u1-orders\n"
    )
    assert main(review_args(ws, unit="u1-order")) == 2  # a near miss: the likeliest is named
    assert "(did you mean 'u1-orders'?); units with one: u1-orders\n" in capsys.readouterr().err


def test_a_manifest_for_another_unit_is_refused(tmp_path, capsys):
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": CLEAN})
    assert main(review_args(ws, "--manifest", str(manifest_path(ws)), unit="u9")) == 2
    assert capsys.readouterr().err == (
        f"{manifest_path(ws)}: $.unit: 'u1-orders' does not match --unit 'u9'\n"
    )


def test_a_stage_level_review_drops_the_unit_from_the_record_paths(tmp_path, capsys):
    ws = make_workspace(tmp_path / "ws", {"src/app.py": CLEAN}, unit=None)
    assert main(review_args(ws, unit=None)) == 0
    assert (ws / "aidlc-docs/construction/code-review/code-review-findings.json").is_file()
    assert (ws / "aidlc-docs/construction/code-review/code-review-receipt.json").is_file()
    assert findings_doc(ws, unit=None)["unit"] is None


def _seen(text, severity="major", path="a.py", fingerprint=None, location=None):
    """A sensor's observation: resolved when the sensor stops reporting it."""
    return Observation(
        severity,
        "correctness",
        path,
        location,
        text,
        "e",
        "r",
        "sensor",
        fingerprint or f"fp-{text}",
        check="lint",
        rule=f"R-{text}",
    )


def test_ids_are_assigned_once_and_a_finding_seen_again_is_reopened_not_renumbered():
    first = merge([], [_seen("b", path="b.py"), _seen("a")], 1, 1)
    assert [(f.id, f.finding) for f in first] == [("CR-001", "a"), ("CR-002", "b")]
    second = merge(first, [_seen("c")], 1, 2)
    assert [(f.id, f.status) for f in second] == [
        ("CR-001", "resolved"),
        ("CR-002", "resolved"),
        ("CR-003", "open"),
    ]
    third = merge(second, [_seen("a", location="9")], 1, 3)
    assert [(f.id, f.status, f.first_seen) for f in third] == [
        ("CR-001", "open", 3),
        ("CR-002", "resolved", 1),
        ("CR-003", "resolved", 2),
    ]


def test_a_corrupt_request_file_is_bad_input_naming_the_file(tmp_path, capsys):
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": CLEAN})
    started = _start(ws, capsys)
    saved = ws / f"aidlc-docs/.aidlc-engine/code-review/{UNIT}/requests/{started['request']}.json"
    request = json.loads(saved.read_text())
    saved.write_text(json.dumps({**request, "attempt": "1", "pas": 1}))
    answer = tmp_path / "answer.json"
    answer.write_text(json.dumps(ANSWER))
    argv = ["review", "submit", "--workspace", str(ws), "--unit", UNIT]
    assert main([*argv, "--request", started["request"], "--answer", str(answer)]) == 2
    assert capsys.readouterr().err == (
        f'{saved}: not a valid request: $.attempt: must be an integer, got "1"; '
        "$.pas: unknown key (did you mean 'pass'?)\n"
    )
