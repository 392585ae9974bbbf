"""The workspace's review settings, as a strict model: ``.aidlc-review.toml`` (the settings at
its top level, for a project of any language), else the ``[tool.aidlc-review]`` table of
``pyproject.toml``, else the ``"aidlc-review"`` object of ``package.json``. The first of
those files that exists is the one read.

``test-command``, ``coverage-threshold``, ``base-revision`` and ``brief-diff-bytes``; a
``[tool.aidlc-review.units.<unit>]`` table overrides them for one unit. A misspelt key
is an error with "did you mean" (``test-comand`` would otherwise silently skip
coverage), and every breadcrumb names the file, its line and the key. What can be checked
when the file is read is checked then: a command string must split as a shell would split
it, a ``base-revision`` must name a commit git knows, and a severity override
(``[tool.aidlc-review.severity]``, for the whole workspace) must name a ruff rule code and
stay at or above its floor (``aidlc_review.sensors.rule_severity``; docs/severity.md).
"""

from __future__ import annotations

import math
import re
import shlex
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from aidlc_review.diagnostics import Diagnostic
from aidlc_review.errors import InvalidInput, ValidationFailed
from aidlc_review.review.source.git_drift import resolve_base, show_at
from aidlc_review.sensors import rule_severity
from aidlc_review.typed_load import key_path, show, validate

TABLE = "[tool.aidlc-review]"
OWN_FILE = ".aidlc-review.toml"  # a language-neutral home: its top level is the table
PYPROJECT = "pyproject.toml"
PACKAGE_JSON = "package.json"
SETTINGS_FILES = (OWN_FILE, PYPROJECT, PACKAGE_JSON)
Level = Literal["critical", "major", "minor", "off"]
_RULE_CODE = re.compile(r"[A-Z]{1,6}[0-9]{1,4}")
_TOOL_RULE = re.compile(r"[a-z][a-z0-9-]*:[\w@/.-]+")  # a described tool's: tool:rule


class SeverityOverrides(BaseModel):
    """``[tool.aidlc-review.severity]``: the rule table's severities, tuned by the workspace."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=False)

    test_files: list[str] | None = Field(None, alias="test-files")
    rules: dict[str, Level] = Field(default_factory=dict)  # everywhere
    tests: dict[str, Level] = Field(default_factory=dict)  # in test files
    paths: dict[str, dict[str, Level]] = Field(default_factory=dict)  # glob -> rules

    @field_validator("test_files", mode="before")
    @classmethod
    def _test_globs(cls, value: Any) -> Any:
        if not isinstance(value, list) or not all(isinstance(g, str) and g for g in value):
            raise ValueError(f"must be a list of globs, got {show(value)}")
        for glob in value:
            if "test" not in glob.lower():
                raise ValueError(
                    f"{glob!r} does not name tests (a test glob contains 'test'): it would "
                    "make other files test files and lift the floors on them"
                )
        return value

    def for_sensors(self) -> dict[str, Any]:
        """Plain data for ``settings["severity"]`` (sensors never import the review)."""
        return {
            "test_files": self.test_files,
            "rules": dict(self.rules),
            "tests": dict(self.tests),
            "paths": {glob: dict(rules) for glob, rules in self.paths.items()},
        }


class _Settings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=False)

    test_command: str | list[str] | None = Field(None, alias="test-command")
    coverage_threshold: float | None = Field(None, alias="coverage-threshold")
    base_revision: str | None = Field(None, alias="base-revision")
    brief_diff_bytes: int | None = Field(None, alias="brief-diff-bytes")  # reviewer brief
    # what the agents' turns may cost in one attempt, as their CLIs report it: once spent no
    # agent runs again and the unit goes to the gate as "agent budget exhausted"
    agent_budget_usd: float | None = Field(None, alias="agent-budget-usd", gt=0)
    agent_budget_tokens: int | None = Field(None, alias="agent-budget-tokens", gt=0)
    # with a base: which findings the change owns (reviewdog's filter modes; review.change_filter)
    filter_mode: Literal["added", "diff_context", "file", "nofilter"] | None = Field(
        None, alias="filter-mode"
    )
    # read by the dependencies sensor from the base revision's pyproject.toml (not per unit)
    approved_dependencies: list[str] | None = Field(None, alias="approved-dependencies")
    dependency_audit: str | list[str] | None = Field(None, alias="dependency-audit")
    severity: SeverityOverrides | None = None  # one table for the whole workspace

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
        from aidlc_review.sensors.dependency_changes import approval_problem

        if not isinstance(value, list) or not all(isinstance(a, str) for a in value):
            raise ValueError(f"must be a list of requirements, got {show(value)}")
        for entry in value:  # a Python requirement, or npm's name / name@range
            if (reason := approval_problem(entry)) is not None:
                raise ValueError(f"{entry!r} is not a requirement: {reason}")
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

    @field_validator("severity", mode="before")
    @classmethod
    def _one_table(cls, value: Any) -> Any:
        raise ValueError(
            f"set it in {TABLE} itself: a rule has one severity in the whole workspace "
            "(use its paths table for one folder)"
        )


class DeclaredTool(BaseModel):
    """A tool the project declares for a check (``[[tools]]``), in a language the sensors
    have no descriptor for: it runs ``argv`` on the claimed files ``files`` matches (after
    ``--``), or on the project, and its report is read by the parser of ``format``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    check: Literal["formatter", "linter", "type-check", "security", "coverage"]
    argv: list[str] = Field(min_length=1)
    files: str = Field(min_length=1)
    format: str
    takes: Literal["files", "project"] = "files"
    # a test runner (check "coverage"): the test command names it by ``argv``; its report is
    # written where ``report_args`` say (``{report}``), else it is what the runner prints;
    # ``coverage_args`` make it write ``coverage_report`` in ``coverage_format`` (``{coverage}``)
    report_args: list[str] = Field(default_factory=list)
    coverage_args: list[str] = Field(default_factory=list)
    coverage_format: str | None = None
    coverage_report: str | None = None

    @model_validator(mode="after")
    def _known_formats(self) -> DeclaredTool:
        from aidlc_review.sensors.coverage_formats import COVERAGE_FORMATS
        from aidlc_review.sensors.formats import FILE_FORMATS, TEXT_FORMATS

        known = FILE_FORMATS if self.check == "coverage" else TEXT_FORMATS
        if self.format not in known:
            raise ValueError(
                f"format: must be one of {', '.join(sorted(known))} for a {self.check} tool, "
                f"got {self.format!r}"
            )
        if self.coverage_format is not None and self.coverage_format not in COVERAGE_FORMATS:
            raise ValueError(
                f"coverage_format: must be one of {', '.join(sorted(COVERAGE_FORMATS))}, "
                f"got {self.coverage_format!r}"
            )
        if (self.coverage_format is None) != (self.coverage_report is None):
            raise ValueError("coverage_format and coverage_report go together")
        return self


class WorkspaceSettings(_Settings):
    units: dict[str, UnitOverrides] = Field(default_factory=dict)
    # read at the base like the rest: a change cannot add or swap the tools that judge it
    tools: list[DeclaredTool] = Field(default_factory=list)

    def for_unit(self, unit: str | None) -> UnitSettings:
        """The settings in force for ``unit``: its own table over the workspace's."""
        own = self.units.get(unit or "")
        merged = self.model_dump(by_alias=True, exclude={"units", "tools"}, exclude_none=True)
        if own is not None:
            merged.update(own.model_dump(by_alias=True, exclude_none=True))
        return UnitSettings.model_validate(merged)


def settings_file(workspace: Path) -> str:
    """Which file holds the workspace's settings: the first of ``SETTINGS_FILES`` there."""
    return next((n for n in SETTINGS_FILES if (workspace / n).is_file()), PYPROJECT)


def load_settings(workspace: Path) -> WorkspaceSettings:
    """The workspace's settings (all defaults without a settings file or a table)."""
    return read_settings(workspace).settings


@dataclass(frozen=True)
class OwnSettings:
    """What the workspace's settings file says, validated, with the file's name and text
    (so the base's copy of the same bytes is not parsed again: ``in_force_at``)."""

    name: str
    text: str | None  # None: the workspace has no settings file
    settings: WorkspaceSettings


def read_settings(workspace: Path) -> OwnSettings:
    """The workspace's own settings file, read and validated (bad input refused here)."""
    name = settings_file(workspace)
    path = workspace / name
    if not path.is_file():
        return OwnSettings(name, None, WorkspaceSettings.model_validate({}))
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"{path}: not valid TOML: {exc}") from None
    return OwnSettings(name, text, _parse_named(name, text, str(path), workspace))


def settings_in_force(workspace: Path, base: str | None) -> InForce:
    """The settings that judge a unit whose base commit is ``base``: the table as it stands
    at the base. A change may not configure its own review (lower a severity or the
    coverage threshold, swap the test command); what it changes in the table takes effect
    once it is on the base. The workspace's own table is still read first, so bad input
    is refused as always. Outside git (no base) the workspace's table is all there is."""
    return in_force_at(workspace, base, read_settings(workspace))


def in_force_at(workspace: Path, base: str | None, own: OwnSettings) -> InForce:
    """``settings_in_force`` with the workspace's own settings already read (``own``)."""
    if base is None:
        return InForce(own.settings, None)
    # which file holds them is the base's choice too: a settings file the change plants
    # ahead of the base's (an empty .aidlc-review.toml) does not set the base's table aside
    name, text = next(
        ((n, t) for n in SETTINGS_FILES if (t := show_at(workspace, base, n)) is not None),
        (settings_file(workspace), None),
    )
    if text is None:
        at_base = WorkspaceSettings.model_validate({})
    elif (name, text) == (own.name, own.text):  # the same bytes: already parsed
        at_base = own.settings
    else:
        at_base = _parse_named(name, text, f"{name} at {base[:12]}", workspace)
    if at_base == own.settings:
        return InForce(own.settings, None)
    where = {OWN_FILE: name, PACKAGE_JSON: f'{name}: "aidlc-review"'}.get(name, f"{name}: {TABLE}")
    note = (
        f"{where} differs from the unit's base {base[:12]}: the review "
        "uses the table at the base (a change does not configure its own review); the "
        "change's own settings take effect once it is on the base"
    )
    return InForce(at_base, note)


@dataclass(frozen=True)
class InForce:
    settings: WorkspaceSettings
    note: str | None  # why these are not the workspace's own


def _parse_named(name: str, text: str, shown: str, workspace: Path) -> WorkspaceSettings:
    if name == PACKAGE_JSON:
        return _parse_package_json(text, shown, workspace)
    return _parse(text, shown, workspace, own=name == OWN_FILE)


def _parse_package_json(text: str, shown: str, workspace: Path) -> WorkspaceSettings:
    """``package.json``'s ``"aidlc-review"`` object (breadcrumbs: the key's line)."""
    import json

    try:
        data = json.loads(text)
    except ValueError as exc:
        raise InvalidInput(f"{shown}: not valid JSON: {exc}") from None
    table = data.get("aidlc-review", {}) if isinstance(data, dict) else {}
    if not isinstance(table, dict):
        raise InvalidInput(f'{shown}: "aidlc-review": must be an object')

    def line_of(loc: tuple[str | int, ...]) -> int:
        keys = [k for k in loc if isinstance(k, str)] or ["aidlc-review"]
        found = re.search(rf'"{re.escape(keys[-1])}"\s*:', text)
        return text.count("\n", 0, found.start()) + 1 if found else 0

    settings = validate(WorkspaceSettings, table, shown, line_of=line_of, root="aidlc-review")
    _check_revisions(settings, workspace, shown, text)
    _check_floors(settings.severity, shown, text)
    return settings


def _parse(text: str, shown: str, workspace: Path, own: bool = False) -> WorkspaceSettings:
    """``own``: the text is ``.aidlc-review.toml``, whose top level is the table."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InvalidInput(f"{shown}: not valid TOML: {exc}") from None
    table = data if own else data.get("tool", {}).get("aidlc-review", {})
    if not isinstance(table, dict):
        raise InvalidInput(f"{shown}: {TABLE}: must be a table")
    prefix: tuple[str, ...] = () if own else ("tool", "aidlc-review")
    settings = validate(
        WorkspaceSettings,
        table,
        shown,
        line_of=lambda loc: toml_line(text, loc, prefix),
        root="" if own else TABLE,
    )
    _check_revisions(settings, workspace, shown, text)
    _check_floors(settings.severity, shown, text)
    return settings


def _check_floors(overrides: SeverityOverrides | None, shown: str, text: str) -> None:
    """Every override names a ruff rule and none goes below its floor (secrets, injection,
    unsafe deserialization, a file that does not parse: docs/severity.md)."""
    if overrides is None:
        return
    tables: list[tuple[tuple[str, ...], dict[str, Level], bool]] = [
        (("severity", "rules"), overrides.rules, False),
        (("severity", "tests"), overrides.tests, True),
    ]
    tables += [(("severity", "paths", g), r, False) for g, r in overrides.paths.items()]
    found = []
    for where, rules, in_tests in tables:
        for code, level in rules.items():
            message = _refusal(code, level, in_tests)
            if message:
                loc = (*where, code)
                found.append(Diagnostic(shown, toml_line(text, loc), key_path(loc, TABLE), message))
    if found:
        raise ValidationFailed(found)


def _refusal(code: str, level: str, in_tests: bool) -> str | None:
    """Why an override of rule ``code`` to ``level`` is refused, else None. The descriptors'
    severity table is read only here, when the workspace overrides a rule."""
    table = rule_severity.table()
    if code not in table and not (_RULE_CODE.fullmatch(code) or _TOOL_RULE.fullmatch(code)):
        return (
            f"{code!r} is not a rule id (a code like 'S608', or tool:rule as the tool's "
            "findings name it); a secret the secret-scan finds is always critical and cannot "
            "be overridden"
        )
    floor = rule_severity.floors(in_tests).get(code)
    if not rule_severity.below(level, floor):
        return None
    group = table[code].title.split(" (")[0]
    where = "in test files" if in_tests else "outside test files"
    hint = "" if in_tests or code in rule_severity.floors(True) else "; only tests may lower it"
    return f"{level!r} is below the floor: {group} stays {floor} {where}{hint}"


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


def toml_line(
    text: str, loc: tuple[str | int, ...], prefix: tuple[str, ...] = ("tool", "aidlc-review")
) -> int:
    """1-based line of the key at ``loc`` in the ``[tool.aidlc-review]`` table, or in the
    deepest sub-table written as its own header (``[tool.aidlc-review.units.<unit>]``,
    ``[tool.aidlc-review.severity.paths]``); the table's header line when the key is not on a
    line of its own (an inline table), 0 when not even the table can be found."""
    keys = [p for p in loc if isinstance(p, str)]
    lines = text.splitlines()
    for depth in range(len(keys), -1, -1):
        if not prefix and depth == 0:  # a file whose top level is the table
            return _key_line(lines, -1, keys)
        start = _header_line(lines, [*prefix, *keys[:depth]])
        if start is not None:
            return _key_line(lines, start, keys[depth:])
    return 0


def _toml_key(key: str) -> str:
    """A key as TOML may write it: bare or quoted."""
    quoted = re.escape(key)
    return rf"(?:\"{quoted}\"|'{quoted}'|{quoted})"


def _header_line(lines: list[str], keys: list[str]) -> int | None:
    dotted = r"\s*\.\s*".join(_toml_key(k) for k in keys)
    header = re.compile(rf"^\s*\[\s*{dotted}\s*\]\s*$")
    return next((i for i, line in enumerate(lines) if header.match(line)), None)


def _key_line(lines: list[str], start: int, keys: list[str]) -> int:
    if not keys:
        return start + 1
    key = re.compile(rf"^\s*{_toml_key(keys[0])}\s*[=.]")
    for number in range(start + 1, len(lines)):
        if lines[number].lstrip().startswith("["):
            break
        if key.match(lines[number]):
            return number + 1
    return start + 1
