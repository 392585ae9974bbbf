"""The type check holds the claimed files the project's own mypy checks to its config: a
project whose ``[tool.mypy] files`` names its package does not get its tests checked
``strict`` by the review either (itsdangerous 2.2.0's own config, measured)."""

from __future__ import annotations

from pathlib import Path

from aidlc_review.sensors.config_scope import configured_files as files_of
from aidlc_review.sensors.config_scope import in_scope, scope_of
from tests.sensors.support import project_manifest

FILES = ["src/pkg/__init__.py", "src/pkg/core.py", "tests/test_core.py", "setup.py"]


def configured_files(workspace: Path) -> list[str] | None:
    """The files the type check's own tool is configured to check, as its manifest says."""
    runner = project_manifest("type-check").runner
    assert runner is not None
    return files_of(workspace, scope_of(runner.options["scope"]))


def test_files_of_pyproject_keep_what_they_name(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.mypy]\nfiles = ["src/pkg"]\nstrict = true\n')
    entries = configured_files(tmp_path)
    assert entries == ["src/pkg"]
    assert in_scope(FILES, entries) == ["src/pkg/__init__.py", "src/pkg/core.py"]


def test_an_ini_file_wins_and_a_comma_list_and_globs_are_read(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.mypy]\nfiles = ["src"]\n')
    (tmp_path / "mypy.ini").write_text("[mypy]\nfiles = src/pkg/core.py, tests/test_*.py\n")
    entries = configured_files(tmp_path)
    assert in_scope(FILES, entries) == ["src/pkg/core.py", "tests/test_core.py"]


def test_without_files_every_claimed_file_is_in_scope(tmp_path):
    assert configured_files(tmp_path) is None
    (tmp_path / "setup.cfg").write_text("[mypy]\nstrict = True\n")
    assert configured_files(tmp_path) is None
    (tmp_path / "pyproject.toml").write_text("[tool.mypy]\nstrict = true\n")
    assert in_scope(FILES, configured_files(tmp_path)) == FILES
    assert in_scope(FILES, ["./src/pkg/"]) == ["src/pkg/__init__.py", "src/pkg/core.py"]
