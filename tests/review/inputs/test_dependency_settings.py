"""The dependencies sensor's keys are part of the strict ``[tool.aidlc-review]`` model."""

from __future__ import annotations

from pathlib import Path

import pytest

from aidlc_review.errors import ValidationFailed
from aidlc_review.review.inputs.workspace_settings import load_settings


def settings_file(tmp_path: Path, body: str) -> Path:
    (tmp_path / "pyproject.toml").write_text(f"[tool.aidlc-review]\n{body}")
    return tmp_path


def test_approved_dependencies_and_the_audit_command_are_accepted(tmp_path: Path) -> None:
    ws = settings_file(
        tmp_path,
        'approved-dependencies = ["requests>=2", "httpx"]\n'
        'dependency-audit = ["pip-audit", "--strict"]\n',
    )
    chosen = load_settings(ws)
    assert chosen.approved_dependencies == ["requests>=2", "httpx"]
    assert chosen.dependency_audit == ["pip-audit", "--strict"]


def test_an_approval_that_is_not_a_requirement_is_refused_with_its_line(tmp_path: Path) -> None:
    ws = settings_file(tmp_path, 'approved-dependencies = ["requests>=2", "not a req!"]\n')
    with pytest.raises(ValidationFailed) as caught:
        load_settings(ws)
    assert str(caught.value) == (
        f"{ws / 'pyproject.toml'}:2: [tool.aidlc-review].approved-dependencies: 'not a req!' is "
        "not a requirement: Expected semicolon (after name with no version specifier) or end"
    )


def test_a_units_own_approval_is_refused_rather_than_silently_ignored(tmp_path: Path) -> None:
    ws = settings_file(
        tmp_path,
        'approved-dependencies = ["requests>=2"]\n\n'
        '[tool.aidlc-review.units.u1-orders]\napproved-dependencies = ["httpx"]\n',
    )
    with pytest.raises(ValidationFailed) as caught:
        load_settings(ws)
    assert str(caught.value) == (
        f"{ws / 'pyproject.toml'}:5: [tool.aidlc-review].units.u1-orders.approved-dependencies: "
        "set it in [tool.aidlc-review] itself: the dependencies sensor reads it for the whole "
        "workspace, as it stands at the base revision, not per unit"
    )
