"""The project's own environment: the interpreter the workspace's code (and tests) run on.

A review installed in its own venv (pipx, uv tool) must not run the project's tests
on its own interpreter: that one cannot import the project's pytest or packages. The
test command is resolved the way the workspace's shell would resolve it (its venv
first, then PATH), and the interpreter is read from there. Nothing is installed: when
the project lacks coverage.py, the review's own ``coverage`` package (only that one)
is appended to the end of the interpreter's ``sys.path`` for the run.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aidlc_review.harness.definitions.sensor import ToolSpec
from aidlc_review.sensors.descriptors import own_test_runners, runner_module, runner_programs
from aidlc_review.sensors.redact import redact
from aidlc_review.sensors.tools import ToolRun, tail_lines

VENV_DIRS = (".venv", "venv", "env")
_PYTHONS = ("python3", "python")
_MISSING_MODULE = re.compile(r"No module named '?([\w.]+)'?")
_SAID_LIMIT = 1500
_SHIM_TRACEBACK = re.compile(r'File "[^"]*coverage-shim')

# Run as ``python -c BOOTSTRAP <shim> <version-file> run ...``: the project's own coverage
# wins when it has one (site-packages come before the appended shim); its version is
# written down so the result names the coverage.py that measured.
BOOTSTRAP = """\
import sys
shim, said = sys.argv[1:3]
del sys.argv[1:3]
sys.path.append(shim)
import coverage
from coverage.cmdline import main
with open(said, "w", encoding="utf-8") as out:
    out.write(coverage.__version__)
sys.exit(main(sys.argv[1:]))
"""


@dataclass(frozen=True)
class Interpreter:
    path: Path
    how: str  # where it came from, said in findings and by doctor

    def describe(self) -> str:
        return f"{self.path} ({self.how})"


def command_argv(command: Any) -> list[str]:
    """A test command as an argv list (a string is split like a shell would)."""
    return shlex.split(command) if isinstance(command, str) else [str(a) for a in command]


def workspace_venv_bin(workspace: Path) -> Path | None:
    """The ``bin/`` of the workspace's own virtual environment, when it has one."""
    for name in VENV_DIRS:
        candidate = workspace / name / "bin"
        if (workspace / name / "pyvenv.cfg").is_file() and candidate.is_dir():
            return candidate
    return None


def interpreter_for(
    workspace: Path, command: Any, search_path: str | None = None
) -> Interpreter | None:
    """The interpreter the test command runs on: a Python test runner's script (``pytest
    ...``, its descriptor's ``runs``) -> that script's interpreter; ``python -m pytest`` ->
    that python; any other command -> the project's."""
    argv = command_argv(command)
    if not argv:
        return None
    head = argv[0]
    if Path(head).name in {p for spec in own_test_runners() for p in runner_programs(spec)}:
        script = _resolve(workspace, head, search_path)
        if script is None:
            return None
        return _script_interpreter(script, search_path)
    if Path(head).name.startswith("python"):
        found = _resolve(workspace, head, search_path)
        return Interpreter(found, _origin(workspace, found)) if found else None
    return project_interpreter(workspace, search_path)


def project_interpreter(workspace: Path, search_path: str | None = None) -> Interpreter | None:
    """The workspace venv's python, else the first python on PATH."""
    for name in _PYTHONS:
        found = _resolve(workspace, name, search_path)
        if found is not None:
            return Interpreter(found, _origin(workspace, found))
    return None


def _resolve(workspace: Path, name: str, search_path: str | None) -> Path | None:
    """A command as the workspace's shell would find it: a path as given (relative to the
    workspace), else the workspace's venv, else PATH (``search_path`` when pinned)."""
    if os.sep in name:
        path = Path(name) if Path(name).is_absolute() else workspace / name
        return path if _executable(path) else None
    venv = workspace_venv_bin(workspace)
    if venv is not None and _executable(venv / name):
        return venv / name
    found = shutil.which(name, path=search_path)
    return Path(found) if found else None


def _executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def _origin(workspace: Path, path: Path) -> str:
    venv = workspace_venv_bin(workspace)
    if venv is not None and path.parent == venv:
        return f"the workspace's {venv.parent.name}"
    return "PATH"


def _script_interpreter(script: Path, search_path: str | None) -> Interpreter | None:
    """A console script's interpreter from its shebang (pip's ``/bin/sh`` trampoline for
    long paths too); a wrapper that is not Python (a pyenv shim) -> the python beside it."""
    named = _shebang_python(script)
    how = f"the interpreter of {script}"
    if named is not None and not named.is_absolute():  # ``#!/usr/bin/env python3``
        found = shutil.which(str(named), path=search_path)
        return Interpreter(Path(found), how) if found else None
    if named is not None:
        return Interpreter(named, how) if _executable(named) else None
    for name in _PYTHONS:
        beside = script.parent / name
        if _executable(beside):
            return Interpreter(beside, f"the python beside {script}")
    return None


def _shebang_python(script: Path) -> Path | None:
    try:
        with script.open("rb") as handle:
            head = handle.read(1024).decode("utf-8", errors="replace").splitlines()
    except OSError:
        return None
    if not head or not head[0].startswith("#!"):
        return None
    words = head[0][2:].split()
    if words and Path(words[0]).name == "env":
        words = [w for w in words[1:] if not w.startswith("-")]
        return Path(words[0]) if words and words[0].startswith("python") else None
    if words and Path(words[0]).name.startswith("python"):
        return Path(words[0])
    if len(head) > 1 and head[1].startswith("'''exec' "):
        said = head[1].split()[1] if len(head[1].split()) > 1 else ""
        return Path(said) if Path(said).name.startswith("python") else None
    return None


def coverage_shim(folder: Path) -> Path:
    """A directory holding only this tool's ``coverage`` package (a link, nothing copied)."""
    import coverage

    shim = folder / "coverage-shim"
    shim.mkdir(parents=True, exist_ok=True)
    link = shim / "coverage"
    if not link.exists():
        link.symlink_to(Path(coverage.__file__).resolve().parent, target_is_directory=True)
    return shim


def coverage_argv(python: Path, shim: Path, version_file: Path) -> list[str]:
    """``coverage`` run by the project's interpreter: ``<argv> run --branch ...`` follows."""
    return [str(python), "-c", BOOTSTRAP, str(shim), str(version_file)]


def runner_of_command(command: Any, tools: list[ToolSpec] | None = None) -> ToolSpec | None:
    """The Python test runner (a descriptor measured under coverage.py) ``command`` runs:
    by its program (``pytest ...``) or as a module (``python -m pytest ...``)."""
    argv = command_argv(command)
    if not argv:
        return None
    head = Path(argv[0]).name
    for spec in own_test_runners(tools):
        if head in runner_programs(spec):
            return spec
        module = runner_module(spec)
        if head.startswith("python") and module is not None and argv[1:3] == ["-m", module]:
            return spec
    return None


def why_no_data(
    shown: str, python: Interpreter, run: ToolRun, runner: ToolSpec | None = None
) -> str:
    """Why the test command produced no evidence, and the fix that fits (redacted)."""
    head = (
        f"the targeted test command `{shown}` exited {run.returncode} and wrote no coverage data; "
    )
    said = run.stderr + "\n" + run.stdout
    missing = [name.split(".")[0] for name in _MISSING_MODULE.findall(said)]
    where = f"the test command's interpreter {python.describe()}"
    module = runner_module(runner) if runner is not None else None
    if runner is not None and module in missing:
        package = runner.package or module
        fix = (
            f"install {package} in the project environment "
            f"(`{python.path} -m pip install {package}`)"
        )
        return redact(f"{head}{where} cannot import {module}: {fix}")
    if _SHIM_TRACEBACK.search(run.stderr):  # the review's own coverage.py failed there
        return redact(
            f"{head}the review's own coverage.py cannot run on {where} "
            f"({tail_lines(run.stderr, 1)}): install coverage in the project environment "
            f"(`{python.path} -m pip install coverage`)"
        )
    if missing:
        return redact(
            f"{head}{where} cannot import {missing[-1]}: install the project's dependencies "
            "in that environment"
        )
    return redact(
        f"{head}its interpreter: {python.describe()}; its last stderr lines: "
        f"{tail_lines(run.stderr or run.stdout)}"
    )


def quoted_errors(output: str, starts: list[str], limit: int = 12) -> str:
    """A test runner's own words for errors: the lines of its output that start as its
    descriptor's ``errors`` say (pytest's ``E   ...`` and ``ERROR ...`` lines), capped and
    redacted: the collection error a JUnit report only calls "collection failure"."""
    if not starts:
        return ""
    said = [line.strip() for line in output.splitlines() if line.startswith(tuple(starts))]
    return redact(" | ".join(said[-limit:])[:_SAID_LIMIT])
