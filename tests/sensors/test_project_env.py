"""The project's environment: tests, coverage and mypy run on the interpreter the workspace's
own code runs on (its venv, else PATH), installing nothing.

The venvs are real (``python -m venv``, pytest installed by pip from its cache or PyPI), made
once per test run and linked into each workspace as ``.venv``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from aidlc_review.sensors import CheckResult
from aidlc_review.sensors.project_env import interpreter_for, project_interpreter
from tests.sensors.support import built_once, make_workspace, run_one

CALC = "def sign(x):\n    if x > 0:\n        return 1\n    return -1\n"
# the tests prove where they ran: in the workspace's venv, which has no coverage.py (the
# review's own coverage package is found, through the appended shim)
TESTS = (
    "import importlib.util\nimport os\nimport sys\nsys.path.insert(0, 'src')\n"
    "from calc import sign\n\n\n"
    "def test_sign():\n    assert os.path.realpath(sys.prefix) == os.path.realpath('.venv')\n"
    "    assert importlib.util.find_spec('coverage').origin.find('coverage-shim') > 0\n"
    "    assert sign(2) == 1\n"
)
FILES = {"src/calc.py": CALC, "tests/test_calc.py": TESTS}
CLAIMED = ["src/calc.py", "tests/test_calc.py"]
_VERSION = "import sys; print(f'{sys.version_info.major}.{sys.version_info.minor}')"


@pytest.fixture(autouse=True)
def _workspace_pytest_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")


def _make_venv(where: Path, python: str, packages: list[str]) -> Path:
    subprocess.run([python, "-m", "venv", "--without-pip", str(where)], check=True)
    if packages:
        # this run's pip installs into the new venv (--python): the venv needs no pip itself
        pip = [sys.executable, "-m", "pip", "--python", str(where / "bin" / "python")]
        subprocess.run([*pip, "install", "-q", *packages], check=True)
    return where


def _venv(factory: pytest.TempPathFactory, name: str, python: str, packages: list[str]) -> Path:
    root, _ = built_once(factory, name, lambda r: _make_venv(r / "venv", python, packages))
    return root / "venv"


def _base_python() -> str:
    return str(Path(sys._base_executable).resolve())


def _other_python() -> str:
    """A Python of another minor version than this one: the tool's C tracer cannot load."""
    mine = f"{sys.version_info.major}.{sys.version_info.minor}"
    names = [f"python3.{minor}" for minor in (12, 13, 10) if f"3.{minor}" != mine]
    pyenv = [
        path
        for minor in (12, 13, 10)
        for path in sorted(Path.home().glob(f".pyenv/versions/3.{minor}.*/bin/python3.{minor}"))
    ]
    candidates = [*filter(None, map(shutil.which, names)), *map(str, pyenv)]
    for candidate in candidates:
        said = subprocess.run([candidate, "-c", _VERSION], capture_output=True, text=True)
        if said.returncode == 0 and said.stdout.strip() != mine:
            return candidate
    raise AssertionError("this test needs a second Python (3.10, 3.12 or 3.13)")


@pytest.fixture
def with_pytest(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _venv(tmp_path_factory, "venv-pytest-no-coverage", _base_python(), ["pytest"])


@pytest.fixture
def other_version(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _venv(tmp_path_factory, "venv-other-python-pytest", _other_python(), ["pytest"])


@pytest.fixture
def without_pytest(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _venv(tmp_path_factory, "venv-no-pytest", _base_python(), [])


def _workspace(tmp_path: Path, venv: Path, files: dict[str, str] | None = None) -> Path:
    ws = make_workspace(tmp_path / "ws", files or FILES)
    (ws / ".venv").symlink_to(venv, target_is_directory=True)
    return ws


def _coverage(ws: Path, command: str, claimed: list[str] | None = None) -> CheckResult:
    settings = {"coverage_command": command, "coverage_threshold": 0}
    return run_one(ws, claimed or CLAIMED, "coverage", settings=settings)


def _messages(result: CheckResult) -> list[str]:
    return [f.message for f in result.findings]


def test_a_project_venv_with_pytest_but_no_coverage_is_measured(
    tmp_path: Path, with_pytest: Path
) -> None:
    assert subprocess.run([with_pytest / "bin/python", "-c", "import coverage"]).returncode
    result = _coverage(_workspace(tmp_path, with_pytest), "pytest -q tests")
    assert result.status == "passed", _messages(result)
    assert result.tool_version == "coverage " + _library_version()
    assert result.details["files"]["src/calc.py"]["uncovered"] == "4"


def test_another_python_whose_c_tracer_cannot_load_is_measured_too(
    tmp_path: Path, other_version: Path
) -> None:
    python = other_version / "bin/python"
    probe = "import sys; sys.path.append(sys.argv[1]); import coverage.tracer"
    shim = str(Path(_coverage_file()).parent.parent)
    assert subprocess.run([python, "-c", probe, shim], capture_output=True).returncode
    result = _coverage(_workspace(tmp_path, other_version), "python -m pytest -q tests")
    assert result.status == "passed", _messages(result)
    assert result.details["files"]["src/calc.py"]["uncovered"] == "4"


def test_a_project_interpreter_without_pytest_says_so_and_how_to_fix_it(
    tmp_path: Path, without_pytest: Path
) -> None:
    ws = _workspace(tmp_path, without_pytest)
    result = _coverage(ws, "python -m pytest -q tests")
    python = ws / ".venv/bin/python"
    assert (result.status, result.reason) == (
        "error",
        "the targeted test command `python -m pytest -q tests` exited 1 and wrote no "
        f"coverage data; the test command's interpreter {python} (the workspace's .venv) "
        f"cannot import pytest: install pytest in the project environment "
        f"(`{python} -m pip install pytest`)",
    )
    assert _messages(result) == [f"could not verify: {result.reason}"]


def test_a_collection_error_keeps_pytests_own_words(tmp_path: Path, with_pytest: Path) -> None:
    files = {**FILES, "tests/test_broken.py": "import not_installed_anywhere\n"}
    ws = _workspace(tmp_path, with_pytest, files)
    result = _coverage(ws, "pytest -q tests", [*CLAIMED, "tests/test_broken.py"])
    [failed] = [f for f in result.findings if f.rule == "coverage/tests-failed"]
    assert failed.message.startswith("the targeted test command exited 2: ")
    assert "collection failure; pytest said: " in failed.message
    assert "E   ModuleNotFoundError: No module named 'not_installed_anywhere'" in failed.message


def test_a_failing_command_without_data_shows_its_exit_code_and_last_stderr_lines(
    tmp_path: Path, with_pytest: Path
) -> None:
    ws = _workspace(tmp_path, with_pytest)
    result = _coverage(ws, "python no_such_script.py")
    assert result.status == "error"
    assert result.reason is not None
    assert result.reason.startswith(
        "the targeted test command `python no_such_script.py` exited 1 and wrote no coverage "
        f"data; its interpreter: {ws / '.venv/bin/python'} (the workspace's .venv); "
        "its last stderr lines: "
    )
    assert "No file to run: " in result.reason


def test_a_secret_in_the_stderr_tail_is_redacted(tmp_path: Path, with_pytest: Path) -> None:
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    result = _coverage(_workspace(tmp_path, with_pytest), f"python {token}.py")
    assert result.status == "error"
    assert result.reason is not None and token not in result.reason
    assert "<redacted secret>" in result.reason
    assert all(token not in message for message in _messages(result))


def test_mypy_sees_the_projects_installed_packages(tmp_path: Path, with_pytest: Path) -> None:
    """A package installed only in the project's venv is typed by mypy, not "not found"."""
    use = "import onlyhere\n\nx: int = onlyhere.NAME\n"
    ws = _workspace(tmp_path, with_pytest, {"pyproject.toml": "[tool.mypy]\n", "src/use.py": use})
    lib = tmp_path / "lib/onlyhere"
    lib.mkdir(parents=True)
    (lib / "__init__.py").write_text('NAME: str = "n"\n')
    (lib / "py.typed").write_text("")
    site = next((with_pytest / "lib").glob("python*/site-packages"))
    pth = site / f"onlyhere-{tmp_path.name}.pth"
    pth.write_text(f"{lib.parent}\n")
    try:
        result = run_one(ws, ["src/use.py"], "type-check")
    finally:
        pth.unlink()
    assert [(f.path, f.line, f.rule) for f in result.findings] == [("src/use.py", 3, "assignment")]


def test_pytest_resolves_to_its_scripts_interpreter(tmp_path: Path, with_pytest: Path) -> None:
    ws = _workspace(tmp_path, with_pytest)
    found = interpreter_for(ws, "pytest -q tests")
    assert found is not None
    assert (found.path.resolve(), found.how) == (
        (with_pytest / "bin/python").resolve(),
        f"the interpreter of {ws / '.venv/bin/pytest'}",
    )


def test_a_console_script_shebang_is_read_in_each_of_its_forms(tmp_path: Path) -> None:
    bin_ = tmp_path / "bin"
    python = _executable(bin_ / "python3", "#!/bin/sh\n")
    trampoline = "#!/bin/sh\n" + "'''exec' " + f'{python} "$0" "$@"\n' + "' '''\n"
    forms = {"direct": f"#!{python}\n", "trampoline": trampoline, "env": "#!/usr/bin/env python3\n"}
    for name, text in forms.items():
        script = _executable(tmp_path / name / "pytest", text)
        found = interpreter_for(tmp_path, str(script), search_path=str(bin_))
        assert found is not None and found.path == python, name
    # a wrapper that is not Python (a pyenv shim): the python beside it
    shim = _executable(tmp_path / "shims/pytest", "#!/usr/bin/env bash\nexec pyenv exec pytest\n")
    beside = _executable(tmp_path / "shims/python3", "#!/bin/sh\n")
    found = interpreter_for(tmp_path, str(shim), search_path=str(bin_))
    assert found is not None and (found.path, found.how) == (beside, f"the python beside {shim}")


def test_no_interpreter_anywhere_is_none(tmp_path: Path) -> None:
    assert interpreter_for(tmp_path, "pytest", search_path=str(tmp_path)) is None
    assert project_interpreter(tmp_path, search_path=str(tmp_path)) is None


def _executable(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)
    return path


def _library_version() -> str:
    import coverage

    return coverage.__version__


def _coverage_file() -> str:
    import coverage

    return str(coverage.__file__)
