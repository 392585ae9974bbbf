"""The per-file cache: a one-file change re-checks that file only (file-local sensors)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from aidlc_review.sensors import context
from aidlc_review.sensors.cache import default_cache_dir
from aidlc_review.sensors.tools import find_tool
from tests.sensors.support import RUFF_CONFIG, UNFORMATTED, fake_tool, make_workspace, run_one

FILES = [f"src/m{i}.py" for i in range(5)]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    files = {name: f"import os\nx{i} = 1\n" for i, name in enumerate(FILES)}
    files["src/m0.py"] = UNFORMATTED
    return make_workspace(tmp_path / "ws", {"pyproject.toml": RUFF_CONFIG, **files})


def checked(ws: Path, sensor: str, settings: dict | None = None) -> tuple[list[str], list[tuple]]:
    said: list[str] = []
    result = run_one(ws, FILES, sensor, settings=settings, progress=said.append)
    return (
        [m for m in said if "checking" in m],
        [(f.path, f.line, f.rule) for f in result.findings],
    )


@pytest.mark.parametrize(
    "sensor, label", [("formatter", "ruff"), ("linter", "ruff"), ("secret-scan", "detect-secrets")]
)
def test_a_rerun_after_one_change_checks_only_that_file(ws: Path, sensor: str, label: str) -> None:
    first, findings = checked(ws, sensor)
    assert first == [f"{sensor}: checking 5 file(s) with {label}"]
    assert checked(ws, sensor) == ([], findings)
    (ws / "src/m3.py").write_text("import sys\nx3 = 1\n")
    again, _ = checked(ws, sensor)
    assert again == [f"{sensor}: checking 1 file(s) with {label}"]


def test_cached_findings_are_reported_again_unchanged(ws: Path) -> None:
    _, first = checked(ws, "linter")
    assert first == [(name, 1, "F401") for name in FILES[1:]]
    assert checked(ws, "linter")[1] == first


def test_a_tool_config_change_rechecks_every_file(ws: Path) -> None:
    checked(ws, "linter")
    (ws / "pyproject.toml").write_text(RUFF_CONFIG.replace("['E', 'F']", "['E']"))
    said, findings = checked(ws, "linter")
    assert said == ["linter: checking 5 file(s) with ruff"]
    assert findings == []


def test_a_config_file_in_a_subfolder_rechecks_only_the_files_below_it(ws: Path) -> None:
    (ws / "other").mkdir()
    checked(ws, "linter")
    (ws / "src/ruff.toml").write_text("[lint]\nselect = ['E']\n")
    said, _ = checked(ws, "linter")
    assert said == ["linter: checking 5 file(s) with ruff"]


def test_a_new_tool_version_rechecks_every_file(ws: Path, tmp_path: Path) -> None:
    real = find_tool("ruff")
    version = tmp_path / "version.txt"
    version.write_text("ruff 1.0.0")
    fake_tool(
        tmp_path / "bin",
        "ruff",
        (
            "import os, sys\n"
            f"if sys.argv[1:] == ['--version']: print(open({str(version)!r}).read()); sys.exit(0)\n"
            f"os.execv({str(real)!r}, [{str(real)!r}, *sys.argv[1:]])\n"
        ),
    )
    settings = {"tool_path": str(tmp_path / "bin")}
    assert checked(ws, "linter", settings)[0] == ["linter: checking 5 file(s) with ruff"]
    assert checked(ws, "linter", settings)[0] == []
    version.write_text("ruff 1.0.1")
    fake_tool(tmp_path / "bin", "ruff", (tmp_path / "bin" / "ruff").read_text().split("\n", 1)[1])
    assert checked(ws, "linter", settings)[0] == ["linter: checking 5 file(s) with ruff"]


def test_without_the_cache_every_run_checks_every_file(ws: Path) -> None:
    checked(ws, "formatter", {"cache": False})
    assert checked(ws, "formatter", {"cache": False})[0] == [
        "formatter: checking 5 file(s) with ruff"
    ]


def _store(tmp_path: Path) -> Path:
    return tmp_path / "cache" / "results.sqlite3"


@pytest.mark.parametrize(
    "breakage",
    [
        lambda path: path.write_bytes(b"not a database, just bytes\n" * 100),
        lambda path: (
            sqlite3.connect(path).execute("CREATE TABLE entries (k TEXT)").connection.close()
        ),
    ],
    ids=["not-sqlite", "wrong-schema"],
)
def test_an_unreadable_cache_is_moved_aside_and_rebuilt(
    ws: Path, tmp_path: Path, breakage: Callable[[Path], None]
) -> None:
    store = _store(tmp_path)
    store.parent.mkdir(parents=True)
    breakage(store)
    said: list[str] = []
    first = run_one(ws, FILES, "linter", cache_dir=store.parent, progress=said.append)
    assert first.status == "failed"
    assert f"sensors: unreadable result cache moved aside to {store}.broken; rebuilding" in said
    said.clear()
    again = run_one(ws, FILES, "linter", cache_dir=store.parent, progress=said.append)
    assert again.findings == first.findings
    assert not [m for m in said if "checking" in m]  # the rebuilt cache answered


def test_a_review_of_a_corrupt_default_cache_still_exits_normally(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = default_cache_dir() / "results.sqlite3"
    store.parent.mkdir(parents=True, exist_ok=True)
    store.write_bytes(b"\x00garbage" * 64)
    assert main(["sensors", "fire", "linter", "--workspace", str(ws), "--", *FILES]) == 0
    assert "unreadable result cache moved aside" in capsys.readouterr().err


def test_a_change_to_the_sensor_code_rechecks_every_file(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cached findings were shaped by the code that read the tool's output: a new version of
    that code (here: another digest of the sensor modules) never serves the old ones."""
    checked(ws, "linter")
    assert checked(ws, "linter")[0] == []
    monkeypatch.setattr(context, "sensors_code", lambda: "the next release's sensor code")
    said, _ = checked(ws, "linter")
    assert said == ["linter: checking 5 file(s) with ruff"]


def test_a_cached_result_rewritten_without_the_machines_key_is_a_miss_not_a_pass(
    ws: Path,
) -> None:
    """A repairer that empties the linter's cached findings (plain JSON once) gains nothing:
    the entry does not verify, the file is checked again, the findings stand."""
    _, first = checked(ws, "linter")
    db = sqlite3.connect(default_cache_dir() / "results.sqlite3")
    rows = db.execute("SELECT key, value FROM entries WHERE key LIKE 'file:%'").fetchall()
    assert rows and all(not value.startswith("[") for _, value in rows)  # sealed, not bare
    # bare JSON, and (for a file with findings) its own MAC kept in front of emptied findings
    forged = [("[]" if i % 2 else v.split(":", 1)[0] + ":[]", k) for i, (k, v) in enumerate(rows)]
    assert any(not v.endswith(":[]") for _, v in rows)
    with db:
        db.executemany("UPDATE entries SET value = ? WHERE key = ?", forged)
    db.close()

    said: list[str] = []
    result = run_one(ws, FILES, "linter", progress=said.append)

    assert [(f.path, f.line, f.rule) for f in result.findings] == first
    changed = sum(value != original for (value, _), (_, original) in zip(forged, rows, strict=True))
    assert f"linter: checking {changed} file(s) with ruff" in said
    assert any("did not verify against this machine's key" in line for line in said)
