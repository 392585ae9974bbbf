"""The settings live where a project of any language keeps them: ``.aidlc-review.toml``,
``[tool.aidlc-review]`` in ``pyproject.toml``, or ``"aidlc-review"`` in ``package.json``
(the first of those files that exists), each read at the unit's base as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aidlc_review.errors import ValidationFailed
from aidlc_review.review.inputs.workspace_settings import load_settings, settings_file


def test_an_own_settings_file_holds_the_table_at_its_top_level(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text("{}\n")
    (tmp_path / ".aidlc-review.toml").write_text('test-command = "npx vitest run"\n')
    assert settings_file(tmp_path) == ".aidlc-review.toml"
    assert load_settings(tmp_path).test_command == "npx vitest run"


def test_package_json_holds_them_in_its_aidlc_review_object(tmp_path: Path) -> None:
    package = {"name": "orders", "aidlc-review": {"test-command": "npx vitest run tests"}}
    (tmp_path / "package.json").write_text(json.dumps(package, indent=2))
    assert settings_file(tmp_path) == "package.json"
    assert load_settings(tmp_path).test_command == "npx vitest run tests"


def test_a_misspelt_key_names_the_file_its_line_and_the_key(tmp_path: Path) -> None:
    (tmp_path / ".aidlc-review.toml").write_text('# review\ntest-comand = "pytest"\n')
    with pytest.raises(ValidationFailed) as caught:
        load_settings(tmp_path)
    said = str(caught.value)
    assert said.startswith(f"{tmp_path / '.aidlc-review.toml'}:2: test-comand: ")
    assert "did you mean 'test-command'?" in said


def test_a_settings_file_the_change_plants_does_not_set_the_bases_table_aside(
    tmp_path: Path,
) -> None:
    import subprocess

    from aidlc_review.review.inputs.workspace_settings import settings_in_force

    (tmp_path / "pyproject.toml").write_text(
        '[tool.aidlc-review]\ntest-command = "python -m pytest -q tests"\n'
    )
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@e"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "base"], check=True)
    base = subprocess.run(
        [*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    (tmp_path / ".aidlc-review.toml").write_text("# no test command: no tests run\n")

    in_force = settings_in_force(tmp_path, base)

    assert in_force.settings.test_command == "python -m pytest -q tests"
    assert in_force.note is not None
