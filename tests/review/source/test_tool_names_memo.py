"""What the runtime asks of the descriptors without running a sensor (the snapshot's tool
caches and root config files, the defect table) comes from a sealed memo once this machine
has read them: a gate then parses no sensor manifest; nothing but this machine's own seal
stands in for the descriptors."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from aidlc_review.review.source.tool_names import memo_key, read_descriptors, tool_names
from aidlc_review.sensors.cache import ResultCache, default_cache_dir

FRESH = """
import sys
from aidlc_review.review.findings.defects import defect_class
from aidlc_review.review.source.freeze import config_files, skipped_dirs, tool_leftovers
print(sorted(config_files()), sorted(skipped_dirs()), tool_leftovers().pattern,
      defect_class("F401", "linter"), defect_class("ruff:F821", "linter"))
print("ruamel.yaml" in sys.modules, "aidlc_review.sensors.descriptors" in sys.modules)
"""


@pytest.fixture(autouse=True)
def _read_again() -> Iterator[None]:
    tool_names.cache_clear()  # each test asks as a new process would
    yield
    tool_names.cache_clear()


def in_fresh_process() -> tuple[str, str]:
    done = subprocess.run(
        [sys.executable, "-c", FRESH], capture_output=True, text=True, check=True, env=os.environ
    )
    names, imported = done.stdout.strip().splitlines()
    return names, imported


def forge(value: str) -> None:
    """Write the memo's entry straight into the cache file, as an agent could."""
    key = memo_key()
    assert key is not None
    ResultCache(default_cache_dir()).close()  # the file exists
    db = sqlite3.connect(default_cache_dir() / "results.sqlite3")
    with db:
        db.execute("INSERT OR REPLACE INTO entries VALUES (?, ?)", (key, value))
    db.close()


def test_the_memo_answers_with_exactly_what_the_descriptors_say():
    first = tool_names()  # read from the descriptors, remembered
    tool_names.cache_clear()
    again = tool_names()
    assert again == first == read_descriptors()
    assert ".mypy_cache" in again.caches and "pyproject.toml" in again.configs
    assert again.defects and set(again.defects.values()) >= {"unused-name"}
    assert again.tests and any("test" in glob for glob in again.tests)


def test_a_process_that_finds_the_memo_parses_no_sensor_manifest():
    names_before, imported_before = in_fresh_process()  # no memo yet: reads the descriptors
    assert imported_before == "True True"
    names_after, imported_after = in_fresh_process()
    assert imported_after == "False False"
    assert names_after == names_before


def test_a_forged_memo_naming_the_source_folder_a_tool_cache_is_a_miss():
    forge("0" * 64 + ':{"caches": ["src"], "configs": [], "defects": {}}')
    names = tool_names()
    assert names == read_descriptors()
    assert "src" not in names.caches
    tool_names.cache_clear()
    assert tool_names() == read_descriptors()  # the entry was written again, sealed


def test_a_memo_sealed_under_another_machines_key_is_a_miss(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    key = memo_key()
    assert key is not None
    with monkeypatch.context() as other:
        other.setenv("XDG_STATE_HOME", str(tmp_path / "other-machine"))
        cache = ResultCache(default_cache_dir())
        cache.put_many({key: {"caches": ["src"], "configs": [], "defects": {}}})
        cache.close()
    names = tool_names()
    assert "src" not in names.caches
    assert names == read_descriptors()


def test_a_sealed_entry_of_another_shape_is_a_miss():
    key = memo_key()
    assert key is not None
    cache = ResultCache(default_cache_dir())
    cache.put_many({key: {"caches": "src", "configs": [""], "defects": {"F401": 1}}})
    cache.close()
    assert tool_names() == read_descriptors()


def test_a_forged_memo_folding_a_secret_into_another_defect_is_a_miss():
    real = read_descriptors().defects
    assert real, "the shipped descriptors class some rules"
    rule = next(iter(real))
    forge("0" * 64 + f':{{"caches": [], "configs": [], "defects": {{"{rule}": "style"}}}}')
    assert tool_names().defects == real


def test_a_forged_memo_calling_the_source_the_projects_tests_is_a_miss():
    forge("0" * 64 + ':{"caches": [], "configs": [], "defects": {}, "tests": ["src/**"]}')
    names = tool_names()
    assert names == read_descriptors()
    assert "src/**" not in names.tests


def test_a_sealed_entry_without_the_test_globs_is_a_miss():
    key = memo_key()
    assert key is not None
    real = read_descriptors()
    cache = ResultCache(default_cache_dir())
    shape = {"caches": list(real.caches), "configs": list(real.configs), "defects": real.defects}
    cache.put_many({key: shape})  # sealed here, but of the shape before the test globs
    cache.close()
    assert tool_names() == real and real.tests
