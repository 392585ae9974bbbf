"""A runner's own tool runs as its descriptor says: its environment, the flags its runner
requires, the files that configure it, how errors name it; a rule's defect class decides
what the runtime checks about its findings."""

from __future__ import annotations

from pathlib import Path

import pytest

from aidlc_review.harness.definitions.sensor import ToolSpec
from aidlc_review.sensors.descriptors import shipped_tools
from aidlc_review.sensors.own_tool import command_of, config_names
from tests.sensors.support import fake_tool, make_workspace, project_manifest, run_one

# a stand-in formatter that says what its environment's cache folder held, then writes a
# cache entry there as the real one would
RECORDING_FORMATTER = """\
import os, sys
if '--version' in sys.argv:
    print('black, 99.1')
    sys.exit(0)
cache = os.environ['BLACK_CACHE_DIR']
with open(os.environ['LOG'], 'a') as log:
    log.write(f"{cache} {sorted(os.listdir(cache))}\\n")
open(os.path.join(cache, 'cache.pickle'), 'w').write('every file is formatted')
"""


def _spec(sensor: str, tool: str) -> ToolSpec:
    [spec] = [s for name, s in shipped_tools() if name == sensor and s.tool == tool]
    return spec


def test_a_descriptor_env_gives_each_run_an_empty_folder_outside_the_workspace_gone_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = make_workspace(tmp_path / "ws", {"pyproject.toml": "[tool.black]\n", "a.py": "x = 1\n"})
    fake_tool(tmp_path / "bin", "black", RECORDING_FORMATTER)
    log = tmp_path / "log"
    monkeypatch.setenv("LOG", str(log))
    settings = {"tool_path": str(tmp_path / "bin")}
    first = run_one(ws, ["a.py"], "formatter", settings=settings, cache_dir=tmp_path / "c")
    (ws / "a.py").write_text("y = 2\n")  # a new content: not served from the result cache
    second = run_one(ws, ["a.py"], "formatter", settings=settings, cache_dir=tmp_path / "c")
    assert (first.status, second.status) == ("passed", "passed")
    runs = [line.split(" ", 1) for line in log.read_text().splitlines()]
    assert [listing for _folder, listing in runs] == ["[]", "[]"]  # the last run's cache unread
    folders = [Path(folder) for folder, _listing in runs]
    assert folders[0] != folders[1]
    assert not any(folder.exists() for folder in folders)
    assert not any(folder.is_relative_to(ws) for folder in folders)


def test_a_descriptor_without_a_flag_its_runner_requires_is_an_error_not_a_narrower_check(
    tmp_path: Path,
) -> None:
    ws = make_workspace(tmp_path / "ws", {"a.py": "eval(input())\n"})
    spec = _spec("security", "ruff")
    narrowed = spec.model_copy(update={"argv": [a for a in spec.argv if a != "--isolated"]})
    manifest = project_manifest("security", runner={"tools": [narrowed]})
    result = run_one(ws, ["a.py"], manifest)
    assert (result.status, result.reason) == (
        "error",
        "the security sensor's ruff argv must include --isolated",
    )
    assert result.blocking


def test_the_files_that_configure_a_tool_come_from_its_descriptor() -> None:
    assert config_names(_spec("linter", "ruff")) == [".ruff.toml", "pyproject.toml", "ruff.toml"]
    assert config_names(_spec("formatter", "ruff")) == [".ruff.toml", "pyproject.toml", "ruff.toml"]
    assert config_names(_spec("formatter", "black")) == ["pyproject.toml"]
    assert config_names(_spec("security", "ruff")) == []  # it reads no configuration


def test_an_error_names_the_tool_by_the_words_of_its_argv_before_the_first_option() -> None:
    assert command_of(_spec("linter", "ruff")) == "ruff check"
    assert command_of(_spec("formatter", "ruff")) == "ruff format"
    assert command_of(_spec("formatter", "black")) == "black"


PASSWORDS = """\
def split(text: str, floor_token: str = "<") -> list[str]:
    return text.split(floor_token)


def connect(user: str, password: str = "hunter2-correct-horse") -> str:
    return user + password
"""


def test_the_linter_judges_a_password_rule_by_its_defect_class_as_the_security_lens_does(
    tmp_path: Path,
) -> None:
    ws = make_workspace(
        tmp_path / "ws",
        {"pyproject.toml": "[tool.ruff.lint]\nselect = ['S107']\n", "src/d.py": PASSWORDS},
    )
    result = run_one(ws, ["src/d.py"], "linter")
    assert [(f.line, f.rule, f.severity) for f in result.findings] == [
        (1, "S107", "minor"),  # "<" cannot be a password
        (5, "S107", "major"),
    ]
    assert result.findings[0].message.endswith("to be a credential)")
