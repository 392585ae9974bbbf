"""Small input holes, each refused up front with a breadcrumb (exit 2, nothing written).

A source manifest naming a key twice, claiming git's own files or a file whose name holds
a secret; a ``test-command`` no shell could split; a ``base-revision`` git does not know;
and a staged file the sensors hook is given by its absolute path or from outside.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from aidlc_review.sensors.redact import scrub
from tests.review.workspace import (
    CLEAN,
    FAKE_KEY,
    LINT_ERROR,
    PYPROJECT,
    UNIT,
    make_workspace,
    manifest_path,
    review_args,
)

SETTINGS_LINE = len(PYPROJECT.splitlines()) + 3  # PYPROJECT, a blank line, the header


def files_of(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return make_workspace(tmp_path / "ws", {"src/orders.py": CLEAN, "src/other.py": CLEAN})


def refused(ws: Path, capsys, argv: list[str] | None = None) -> str:
    """Run the review (or ``argv``): exit 2, nothing written, the error output returned."""
    before = files_of(ws)
    assert main(argv or review_args(ws)) == 2
    captured = capsys.readouterr()
    assert files_of(ws) == before
    assert captured.out == ""
    return captured.err


def manifest_text(writes: str, extra: str = "") -> str:
    head = f'"stage": "code-generation", "unit": "{UNIT}", "version": 1'
    return f'{{{head}, {extra}"writes": {writes}}}'


def test_a_manifest_write_naming_path_twice_is_refused(ws: Path, capsys) -> None:
    manifest = manifest_path(ws)
    manifest.write_text(manifest_text('[{"path": "src/orders.py", "path": "src/other.py"}]'))
    assert refused(ws, capsys) == f'{manifest}: $.writes[0]: duplicate key "path"\n'


def test_a_manifest_naming_a_top_level_key_twice_is_refused(ws: Path, capsys) -> None:
    manifest = manifest_path(ws)
    writes = '[{"path": "src/orders.py"}]'
    manifest.write_text(manifest_text(writes, extra=f'"writes": {writes}, '))
    assert refused(ws, capsys) == f'{manifest}: $: duplicate key "writes"\n'


@pytest.mark.parametrize("claim", [".git/config", "sub/.git/hooks/x", "sub/.GIT/", ".git"])
def test_git_s_own_files_cannot_be_claimed(ws: Path, claim: str, capsys) -> None:
    (ws / "sub/.git/hooks").mkdir(parents=True)
    (ws / "sub/.git/hooks/x").write_text("#!/bin/sh\n")
    manifest = manifest_path(ws)
    manifest.write_text(manifest_text(f'[{{"path": "{claim}"}}]'))
    assert refused(ws, capsys) == (
        f"{manifest}: $.writes[0].path: must not name git's own files (a .git component), "
        f"got {claim!r}\n"
    )


def test_a_claim_reaching_git_s_files_through_a_symlink_is_refused(ws: Path, capsys) -> None:
    (ws / "src/meta").symlink_to(ws / ".git")
    manifest = manifest_path(ws)
    manifest.write_text(manifest_text('[{"path": "src/meta/config"}]'))
    assert refused(ws, capsys) == (
        f"{manifest}: $.writes[0].path: 'src/meta/config' resolves into a .git directory\n"
    )


def test_a_claimed_name_holding_a_secret_is_refused_without_the_secret(
    tmp_path: Path, capsys
) -> None:
    name = f"src/{FAKE_KEY}.py"
    ws = make_workspace(tmp_path / "ws", {"src/orders.py": CLEAN, name: CLEAN})
    shown, found = scrub(name)
    assert [q.type for q in found] == ["AWS Access Key"]
    err = refused(ws, capsys)
    assert err == (
        f"{manifest_path(ws)}: $.writes[0].path: names a secret ({shown}); "
        "rename it so no secret is in its path\n"
    )
    assert FAKE_KEY not in err


def test_a_review_in_its_own_process_refuses_a_secret_name_without_the_secret(
    tmp_path: Path,
) -> None:
    """As a user runs it: one process, whose claimed names are checked in the child it
    forked to load detect-secrets (``redact.load_plugins_early``)."""
    name = f"src/{FAKE_KEY}.py"
    ws = make_workspace(tmp_path / "ws", {"src/orders.py": CLEAN, name: CLEAN})
    before = files_of(ws)
    done = subprocess.run(
        [sys.executable, "-m", "aidlc_review", *review_args(ws)],
        capture_output=True,
        text=True,
        env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")},
        timeout=120,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"{manifest_path(ws)}: $.writes[0].path: names a secret "
        f"({scrub(name)[0]}); rename it so no secret is in its path\n"
    )
    assert files_of(ws) == before


@pytest.mark.parametrize(
    ("table", "key"),
    [
        ("[tool.aidlc-review]", "[tool.aidlc-review]"),
        (f"[tool.aidlc-review.units.{UNIT}]", f"[tool.aidlc-review].units.{UNIT}"),
    ],
)
def test_a_test_command_no_shell_could_split_is_refused_at_load(
    ws: Path, table: str, key: str, capsys
) -> None:
    pyproject = ws / "pyproject.toml"
    pyproject.write_text(PYPROJECT + f'\n{table}\ntest-command = "pytest -k \'orders"\n')
    assert refused(ws, capsys) == (
        f"{pyproject}:{SETTINGS_LINE}: {key}.test-command: cannot split: No closing quotation\n"
    )


@pytest.mark.parametrize(
    ("table", "key"),
    [
        ("[tool.aidlc-review]", "[tool.aidlc-review]"),
        (f"[tool.aidlc-review.units.{UNIT}]", f"[tool.aidlc-review].units.{UNIT}"),
    ],
)
def test_an_unknown_base_revision_names_its_pyproject_line(
    ws: Path, table: str, key: str, capsys
) -> None:
    pyproject = ws / "pyproject.toml"
    pyproject.write_text(PYPROJECT + f'\n{table}\nbase-revision = "no-such-branch"\n')
    assert refused(ws, capsys) == (
        f"{pyproject}:{SETTINGS_LINE}: {key}.base-revision: 'no-such-branch' is not a commit "
        f"in {ws.resolve()}\n"
    )


def test_hook_sensors_takes_an_absolute_path_inside_the_workspace_as_the_relative_one(
    tmp_path: Path, capsys
) -> None:
    ws = make_workspace(tmp_path / "ws", {"src/calc.py": LINT_ERROR})
    hook = ["hook", "sensors", "--workspace", str(ws), "--sensor", "linter"]
    assert main([*hook, "src/calc.py"]) == 1
    relative = capsys.readouterr().out
    assert main([*hook, str(ws / "src" / ".." / "src" / "calc.py")]) == 1
    assert capsys.readouterr().out == relative
    assert relative.startswith(f"{UNIT}: linter: failed\n")


@pytest.mark.parametrize("name", ["outside.py", "../outside.py"])
def test_hook_sensors_refuses_a_file_outside_the_workspace(
    tmp_path: Path, name: str, capsys
) -> None:
    ws = make_workspace(tmp_path / "ws", {"src/calc.py": LINT_ERROR})
    (tmp_path / "outside.py").write_text(LINT_ERROR)
    given = str(tmp_path / name) if name == "outside.py" else name
    argv = ["hook", "sensors", "--workspace", str(ws), "--sensor", "linter", given]
    assert refused(ws, capsys, argv) == f"{given}: not inside the workspace {ws.resolve()}\n"
