"""A tool's own cache (mypy's) is used only as this machine sealed it: an agent that rewrites
an entry, even putting its times back, adds or removes one, gets the cache removed and the
tool started cold. Nothing it writes there changes what the tool reports."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from aidlc_review.sensors import tool_cache
from tests.sensors.support import MYPY_CONFIG, located, make_workspace, run_one


def sealed_cache(root: Path) -> Path:
    cache = make_workspace(root / "cache", {"3.11/app.meta.json": '{"hash": "a"}', "3.11/x": ""})
    tool_cache.seal(cache)
    return cache


def test_a_cache_as_the_tool_left_it_is_trusted(tmp_path: Path):
    cache = sealed_cache(tmp_path)
    assert tool_cache.trusted(cache)
    assert (cache / "3.11/app.meta.json").is_file()


def test_a_missing_cache_is_trusted_and_an_unsealed_one_is_removed(tmp_path: Path):
    assert tool_cache.trusted(tmp_path / "none")
    unsealed = make_workspace(tmp_path / "unsealed", {"3.11/app.meta.json": "{}"})
    assert not tool_cache.trusted(unsealed)
    assert not unsealed.exists()


def test_an_entry_rewritten_with_its_size_and_times_put_back_removes_the_cache(tmp_path: Path):
    cache = sealed_cache(tmp_path)
    entry = cache / "3.11/app.meta.json"
    before = entry.stat()
    entry.write_text('{"hash": "b"}')  # same size, in place: same inode
    os.utime(entry, ns=(before.st_atime_ns, before.st_mtime_ns))

    assert not tool_cache.trusted(cache)
    assert not cache.exists()


@pytest.mark.parametrize("edit", ["add", "remove", "replace"])
def test_an_entry_added_removed_or_replaced_removes_the_cache(tmp_path: Path, edit: str):
    cache = sealed_cache(tmp_path)
    if edit == "add":
        (cache / "3.11/planted.meta.json").write_text("{}")
    elif edit == "remove":
        (cache / "3.11/x").unlink()
    else:
        (cache / "copy").write_text('{"hash": "a"}')
        os.replace(cache / "copy", cache / "3.11/app.meta.json")

    assert not tool_cache.trusted(cache)


def test_a_seal_written_by_anyone_without_the_machines_key_is_not_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    cache = sealed_cache(tmp_path)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "another-machine"))
    assert not tool_cache.trusted(cache)


def test_mypy_finds_its_error_again_after_an_agent_rewrote_its_cache(tmp_path: Path):
    files = {"mypy.ini": MYPY_CONFIG, "app.py": 'count: int = "three"\n'}
    ws, root = make_workspace(tmp_path / "ws", files), tmp_path / "cache-home"
    first = run_one(ws, ["app.py"], "type-check", cache_dir=root)
    [cache] = root.rglob("mypy-cache")
    entries = [p for p in cache.rglob("*") if p.is_file() and p.name != tool_cache.SEAL]
    assert entries, "mypy left its cache in the plugin's scratch folder"
    for entry in entries:
        entry.write_bytes(entry.read_bytes())  # any write at all, even of the same bytes
    said: list[str] = []

    again = run_one(ws, ["app.py"], "type-check", cache_dir=root, progress=said.append)

    assert located(first) == located(again) == [("app.py", 1, "assignment", "major")]
    assert any("mypy's cache did not match its seal: removed" in line for line in said), said
    assert tool_cache.trusted(cache), "the cold run's cache is sealed again"
