"""A tool's version is read from the distribution that installed it, when its RECORD lists
that very file; anything else asks the tool (``sensors.installed_version``, ``tool_version``)."""

from __future__ import annotations

import importlib.metadata
import stat
import sys
from pathlib import Path

import pytest

from aidlc_review.sensors.installed_version import installed_version
from aidlc_review.sensors.tools import find_tool, tool_version

SCRIPT = "#!{python}\nprint('{tool} 9.9.9 (from the tool itself)')\n"


def fake_env(root: Path, tool: str = "sometool", dist: str = "some_tool-1.2.3") -> Path:
    """An environment as pip leaves it: a script in bin/, listed with its size in RECORD."""
    script = root / "bin" / tool
    script.parent.mkdir(parents=True)
    script.write_text(SCRIPT.format(python=sys.executable, tool=tool))
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    info = root / "lib" / "python3.11" / "site-packages" / f"{dist}.dist-info"
    info.mkdir(parents=True)
    size = script.stat().st_size
    (info / "RECORD").write_text(
        f"some_tool/__init__.py,sha256=x,10\n../../../bin/{tool},sha256=y,{size}\n"
    )
    return script


@pytest.mark.parametrize("tool, dist", [("mypy", "mypy"), ("detect-secrets", "detect-secrets")])
def test_the_review_environments_own_tools_are_read_from_their_dist_info(tool, dist) -> None:
    path = find_tool(tool)
    assert path is not None
    assert installed_version(path) == f"{dist} {importlib.metadata.version(dist)}"


def test_a_listed_script_is_not_started_to_learn_its_version(tmp_path: Path) -> None:
    script = fake_env(tmp_path / "env", tool="some-tool")
    assert installed_version(script) == "some-tool 1.2.3"
    assert tool_version(script, ["some-tool", "--version"]) == "some-tool 1.2.3"


def test_a_script_changed_since_it_was_installed_is_asked_instead(tmp_path: Path) -> None:
    script = fake_env(tmp_path / "env", tool="some-tool")
    script.write_text(script.read_text() + "# edited\n")
    assert installed_version(script) is None
    assert tool_version(script, ["some-tool", "--version"]) == (
        "some-tool 9.9.9 (from the tool itself)"
    )


def test_a_script_no_distribution_of_its_name_lists_has_no_installed_version(
    tmp_path: Path,
) -> None:
    assert installed_version(fake_env(tmp_path / "a", tool="othertool")) is None
    unlisted = fake_env(tmp_path / "b", tool="some-tool")
    record = next((tmp_path / "b").rglob("RECORD"))
    record.write_text("some_tool/__init__.py,sha256=x,10\n")
    assert installed_version(unlisted) is None
    assert installed_version(tmp_path / "missing") is None
