"""``aidlc-review sensors list | run | fire``: exit codes and output shapes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from tests.sensors.support import RUFF_CONFIG, UNFORMATTED, make_workspace

SHARED_HARNESS = Path(__file__).resolve().parents[3] / "shared" / "aidlc-harness"
OURS = ["coverage", "dependencies", "formatter", "linter", "secret-scan", "security", "type-check"]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return make_workspace(
        tmp_path / "ws",
        {"pyproject.toml": RUFF_CONFIG, "src/a.py": UNFORMATTED, "src/b.py": "y = 2\n"},
    )


def manifest_for(ws: Path, *paths: str) -> Path:
    path = ws.parent / "source-manifest.json"
    path.write_text(
        json.dumps(
            {
                "stage": "code-generation",
                "unit": "u1",
                "version": 1,
                "writes": [{"path": p} for p in paths],
            }
        )
    )
    return path


def test_list_shows_every_sensor_of_the_project(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sensors", "list", "--json"]) == 0
    sensors = {s["id"]: s for s in json.loads(capsys.readouterr().out)["sensors"]}
    assert set(OURS) <= set(sensors)
    assert sensors["formatter"]["tools"] == ["ruff", "black", "prettier", "biome"]
    assert sensors["secret-scan"]["required"] is True
    assert sensors["linter"]["command"] == "aidlc-review sensors fire linter"


def test_list_reads_another_harness(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sensors", "list", "--harness", str(SHARED_HARNESS)]) == 0
    out = capsys.readouterr().out
    assert [line.split()[0] for line in out.splitlines()] == [
        "linter",
        "required-sections",
        "type-check",
        "upstream-coverage",
    ]


def test_run_exits_1_on_a_blocking_finding_and_prints_the_json_checks(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (ws / "src/b.py").write_text("import os\n")
    code = main(
        [
            "sensors",
            "run",
            "--workspace",
            str(ws),
            "--manifest",
            str(manifest_for(ws, "src/")),
            "--sensor",
            "linter",
            "--sensor",
            "formatter",
            "--json",
        ]
    )
    assert code == 1
    checks = json.loads(capsys.readouterr().out)["checks"]
    assert [c["name"] for c in checks] == ["formatter", "linter"]
    assert set(checks[1]) >= {"name", "status", "reason", "command", "duration_ms", "findings"}
    assert checks[1]["findings"][0] == {
        "severity": "major",
        "category": "code-quality",
        "path": "src/b.py",
        "line": 1,
        "message": "F401 `os` imported but unused (https://docs.astral.sh/ruff/rules/unused-import)",
        "rule": "F401",
        "fingerprint": checks[1]["findings"][0]["fingerprint"],
    }


def test_run_exits_0_when_nothing_blocks(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "sensors",
            "run",
            "--workspace",
            str(ws),
            "--manifest",
            str(manifest_for(ws, "src/a.py")),
            "--sensor",
            "formatter",
        ]
    )
    assert code == 0
    assert capsys.readouterr().out == (
        "formatter: failed\n"
        "  minor    src/a.py:1: file is not formatted as the workspace's formatter requires"
        " [formatter/unformatted]\n"
    )


def test_run_refuses_an_unknown_sensor_with_a_suggestion(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "sensors",
            "run",
            "--workspace",
            str(ws),
            "--manifest",
            str(manifest_for(ws, "src/a.py")),
            "--sensor",
            "lintr",
        ]
    )
    assert code == 2
    err = capsys.readouterr().err
    main(["sensors", "list", "--json"])
    known = ", ".join(sorted(s["id"] for s in json.loads(capsys.readouterr().out)["sensors"]))
    assert err == f"unknown sensor 'lintr' (did you mean 'linter'?); known: {known}\n"


def test_run_refuses_a_missing_workspace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["sensors", "run", "--workspace", str(tmp_path / "nope"), "--manifest", "m.json"])
    assert (code, capsys.readouterr().err) == (
        2,
        f"{tmp_path / 'nope'}: workspace directory not found\n",
    )


def test_fire_prints_the_upstream_contract_and_exits_0(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(["sensors", "fire", "formatter", "--workspace", str(ws), "--", "src/a.py", "src/b.py"])
        == 0
    )
    body = json.loads(capsys.readouterr().out)
    assert (body["pass"], body["findings_count"], body["status"]) == (False, 1, "failed")


def test_fire_passes_on_clean_files(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sensors", "fire", "linter", "src/b.py", "--workspace", str(ws)]) == 0
    body = json.loads(capsys.readouterr().out)
    assert (body["pass"], body["findings_count"]) == (True, 0)


def test_fire_exits_127_when_the_tool_is_unavailable(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (ws / "pyproject.toml").unlink()
    assert main(["sensors", "fire", "formatter", "--workspace", str(ws), "--", "src/a.py"]) == 127
    body = json.loads(capsys.readouterr().out)
    assert (body["pass"], body["status"]) == (True, "skipped")
    assert body["reason"].startswith("no formatter configured in the workspace")


def test_fire_needs_files_or_a_manifest(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sensors", "fire", "linter", "--workspace", str(ws)]) == 2
    assert capsys.readouterr().err == (
        "sensors fire: name the claimed files (after --) or give --manifest FILE\n"
    )


def test_fire_passes_a_file_named_help_as_a_file(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (ws / "--help.py").write_text(UNFORMATTED)
    assert main(["sensors", "fire", "formatter", "--workspace", str(ws), "--", "--help.py"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert [f["path"] for f in body["findings"]] == ["--help.py"]


def test_fire_reads_every_word_after_a_literal_double_dash_as_a_file(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (ws / "--help").write_text("import os\n")
    (ws / "-rf.py").write_text("import os\n")
    assert main(["sensors", "fire", "linter", "--workspace", str(ws), "--", "--help"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert (body["status"], body["reason"]) == (
        "skipped",
        "no claimed file matches **/*.{py,pyi,ts,tsx,mts,cts,js,jsx,mjs,cjs}",
    )
    assert main(["sensors", "fire", "linter", "--workspace", str(ws), "--", "-rf.py"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert [(f["path"], f["rule"]) for f in body["findings"]] == [("-rf.py", "F401")]


def test_fire_still_takes_options_and_files_in_any_order_before_the_double_dash(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (ws / "c.py").write_text("import os\n")
    code = main(["sensors", "fire", "linter", "src/b.py", "--workspace", str(ws), "--", "c.py"])
    assert code == 0
    body = json.loads(capsys.readouterr().out)
    assert [(f["path"], f["rule"]) for f in body["findings"]] == [("c.py", "F401")]


def test_fire_takes_the_id_from_right_after_a_leading_double_dash(
    ws: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (ws / "c.py").write_text("import os\n")
    monkeypatch.chdir(ws)
    assert main(["sensors", "fire", "--", "linter", "c.py"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert (body["name"], [f["path"] for f in body["findings"]]) == ("linter", ["c.py"])
