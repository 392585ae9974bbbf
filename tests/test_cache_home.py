"""A bad ``XDG_CACHE_HOME`` is a usage error naming the variable (exit 2), never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from tests.compiler.harness_factory import write_harness


@pytest.fixture
def cache_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """XDG_CACHE_HOME names a regular file."""
    path = tmp_path / "not-a-dir"
    path.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(path))
    return path


def message(cache_file: Path, name: str) -> str:
    return (
        f"XDG_CACHE_HOME={cache_file}: cannot hold the cache directory "
        f"{cache_file}/aidlc-review/{name}: Not a directory; "
        "point XDG_CACHE_HOME at a writable directory\n"
    )


def test_sensors_run_with_a_cache_home_that_is_a_file_is_a_usage_error(
    tmp_path: Path, cache_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    workspace = tmp_path / "ws"
    (workspace / "src").mkdir(parents=True)
    (workspace / "src" / "a.py").write_text("x = 1\n")
    manifest = workspace / "source-manifest.json"
    manifest.write_text(
        json.dumps({"stage": "code-generation", "version": 1, "writes": [{"path": "src/a.py"}]})
    )
    argv = ["sensors", "run", "--workspace", str(workspace), "--manifest", str(manifest)]
    assert main([*argv, "--sensor", "secret-scan"]) == 2
    assert capsys.readouterr().err.endswith(message(cache_file, "sensors"))


def test_compile_with_a_cache_home_that_is_a_file_is_a_usage_error(
    tmp_path: Path, cache_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = write_harness(tmp_path / "harness")
    for argv in (
        ["compile", "--harness", str(root)],
        ["compile", "--harness", str(root), "--check"],
    ):
        capsys.readouterr()
        assert main(argv) == 2
        assert capsys.readouterr().err.endswith(message(cache_file, "compile-stamps"))
    assert not (root / "tools" / "data" / "stage-graph.json").exists()  # nothing written


def test_a_relative_cache_home_is_ignored_as_the_xdg_spec_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from aidlc_review.dirs import cache_dir

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")
    monkeypatch.chdir(tmp_path)
    assert Path(cache_dir("sensors")) == tmp_path / "home" / ".cache" / "aidlc-review" / "sensors"
    assert not (tmp_path / "relative").exists()


def test_review_run_with_a_cache_home_that_is_a_file_writes_nothing(
    tmp_path: Path, cache_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.review.workspace import CLEAN, make_workspace, review_args

    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": CLEAN})
    before = sorted(p for p in ws.rglob("*"))
    assert main(review_args(ws)) == 2
    assert capsys.readouterr().err.endswith(message(cache_file, "sensors"))
    assert sorted(p for p in ws.rglob("*")) == before
