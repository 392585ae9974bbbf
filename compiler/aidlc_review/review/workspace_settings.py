"""The workspace's ``[tool.aidlc-review]`` table in ``pyproject.toml``, as a strict model.

``test-command``, ``coverage-threshold``, ``base-revision`` and ``brief-diff-bytes``; a
``[tool.aidlc-review.units.<unit>]`` table overrides them for one unit. A misspelt key
is an error with "did you mean" (``test-comand`` would otherwise silently skip
coverage), and every breadcrumb names the file, its line and the key. What can be checked
when the file is read is checked then: a command string must split as a shell would split
it, and a ``base-revision`` must name a commit git knows.
"""

from __future__ import annotations

import math
import re
import shlex
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from aidlc_review.errors import Diagnostic, InvalidInput, ValidationFailed
from aidlc_review.review.git_drift import resolve_base
from aidlc_review.typed_load import key_path, show, validate

TABLE = "[tool.aidlc-review]"


class _Settings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=False)

    test_command: str | list[str] | None = Field(None, alias="test-command")
    coverage_threshold: float | None = Field(None, alias="coverage-threshold")
    base_revision: str | None = Field(None, alias="base-revision")
    brief_diff_bytes: int | None = Field(None, alias="brief-diff-bytes")  # reviewer brief
    # with a base: which findings the change owns (reviewdog's filter modes; review.change_filter)
    filter_mode: Literal["added", "diff_context", "file", "nofilter"] | None = Field(
        None, alias="filter-mode"
    )
    # read by the dependencies sensor from the base revision's pyproject.toml (not per unit)
    approved_dependencies: list[str] | None = Field(None, alias="approved-dependencies")
    dependency_audit: str | list[str] | None = Field(None, alias="dependency-audit")

    @field_validator("coverage_threshold", mode="before")
    @classmethod
    def _threshold(cls, value: Any) -> Any:
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if not number or math.isnan(value) or not 0 <= value <= 100:
            raise ValueError(f"must be a number from 0 to 100, got {show(value)}")
        return value

    @field_validator("test_command", "dependency_audit", mode="before")
    @classmethod
    def _command(cls, value: Any) -> Any:
        if isinstance(value, list) and value and all(isinstance(a, str) for a in value):
            return value
        if isinstance(value, str) and value.strip():
            try:
                shlex.split(value)  # as the sensor will run it: refused now, not mid-review
            except ValueError as exc:
                raise ValueError(f"cannot split: {exc}") from None
            return value
        raise ValueError(f"must be a command or a non-empty list of strings, got {show(value)}")

    @field_validator("approved_dependencies", mode="before")
    @classmethod
    def _approved(cls, value: Any) -> Any:
        from packaging.requirements import InvalidRequirement, Requirement

        if not isinstance(value, list) or not all(isinstance(a, str) for a in value):
            raise ValueError(f"must be a list of requirements, got {show(value)}")
        for entry in value:
            try:
                Requirement(entry)
            except InvalidRequirement as exc:
                reason = str(exc).splitlines()[0]
                raise ValueError(f"{entry!r} is not a requirement: {reason}") from None
        return value

    @field_validator("brief_diff_bytes", mode="before")
    @classmethod
    def _positive(cls, value: Any) -> Any:
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ValueError(f"must be a positive whole number of bytes, got {show(value)}")
        return value

    @field_validator("base_revision", mode="before")
    @classmethod
    def _revision(cls, value: Any) -> Any:
        if not isinstance(value, str) or not value.strip():
            raise ValueError(f"must be a non-empty string, got {show(value)}")
        return value


class UnitSettings(_Settings):
    """The settings in force for one unit."""


class UnitOverrides(_Settings):
    """One unit's own table (``[tool.aidlc-review.units.<unit>]``)."""

    @field_validator("approved_dependencies", "dependency_audit", mode="before")
    @classmethod
    def _workspace_only(cls, value: Any) -> Any:
        raise ValueError(
            f"set it in {TABLE} itself: the dependencies sensor reads it for the whole "
            "workspace, as it stands at the base revision, not per unit"
        )


class WorkspaceSettings(_Settings):
    units: dict[str, UnitOverrides] = Field(default_factory=dict)

    def for_unit(self, unit: str | None) -> UnitSettings:
        """The settings in force for ``unit``: its own table over the workspace's."""
        own = self.units.get(unit or "")
        merged = self.model_dump(by_alias=True, exclude={"units"}, exclude_none=True)
        if own is not None:
            merged.update(own.model_dump(by_alias=True, exclude_none=True))
        return UnitSettings.model_validate(merged)


def load_settings(workspace: Path) -> WorkspaceSettings:
    """The workspace's settings (all defaults without a ``pyproject.toml`` or a table)."""
    pyproject = workspace / "pyproject.toml"
    if not pyproject.is_file():
        return WorkspaceSettings.model_validate({})
    try:
        text = pyproject.read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise InvalidInput(f"{pyproject}: not valid TOML: {exc}") from None
    table = data.get("tool", {}).get("aidlc-review", {})
    if not isinstance(table, dict):
        raise InvalidInput(f"{pyproject}: {TABLE}: must be a table")
    settings = validate(
        WorkspaceSettings,
        table,
        str(pyproject),
        line_of=lambda loc: toml_line(text, loc),
        root=TABLE,
    )
    _check_revisions(settings, workspace, str(pyproject), text)
    return settings


def _check_revisions(settings: WorkspaceSettings, workspace: Path, shown: str, text: str) -> None:
    """Every ``base-revision`` names a commit (outside git there is nothing to check)."""
    found = []
    tables: list[tuple[tuple[str, ...], _Settings]] = [((), settings)]
    tables += [(("units", unit), own) for unit, own in settings.units.items()]
    for where, table in tables:
        if table.base_revision is None:
            continue
        try:
            resolve_base(workspace, table.base_revision)
        except InvalidInput:
            loc = (*where, "base-revision")
            message = f"{table.base_revision!r} is not a commit in {workspace}"
            found.append(Diagnostic(shown, toml_line(text, loc), key_path(loc, TABLE), message))
    if found:
        raise ValidationFailed(found)


def toml_line(text: str, loc: tuple[str | int, ...]) -> int:
    """1-based line of the key at ``loc`` in the ``[tool.aidlc-review]`` table (or of the
    unit's own table); 0 when it cannot be found."""
    keys = [p for p in loc if isinstance(p, str)]
    table = r"tool\.aidlc-review"
    if len(keys) >= 2 and keys[0] == "units":
        table += r"\.units\." + re.escape(keys[1])
        keys = keys[2:]
    header = re.compile(rf"^\s*\[\s*{table}\s*\]\s*$")
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if header.match(line)), None)
    if start is None:
        return 0
    if not keys:
        return start + 1
    key = re.compile(rf"^\s*[\"']?{re.escape(keys[0])}[\"']?\s*=")
    for number in range(start + 1, len(lines)):
        if lines[number].lstrip().startswith("["):
            break
        if key.match(lines[number]):
            return number + 1
    return start + 1
