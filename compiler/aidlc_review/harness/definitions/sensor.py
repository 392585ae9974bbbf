"""The sensor manifest (``sensors/aidlc-<id>.md``): upstream's fields plus a runner block.

Upstream engines fire ``command``; this plugin's runtime uses ``runner`` (a
built-in runner id, its tool candidates with check-only argv, whether a missing
tool blocks, and how results map to finding severities).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, field_validator

from aidlc_review.harness.definitions.base import KEBAB, Definition

# The severity vocabulary (definitions import nothing of ours; the blocking rule itself
# lives in aidlc_review.severity).
Severity = Literal["critical", "major", "minor"]


class SuppressionSpec(Definition):
    """One way the source switches a tool's judgment off: a comment or a marker.

    ``pattern`` is a Python regex matched in each line; a group named ``rules`` lists the
    rules it names (none: every rule). ``scope`` is what it covers: its own line, the next
    line, or the whole file. ``severity`` is the runner's severity key for what it hides
    when that cannot be measured (a skipped test, a line kept out of coverage).
    """

    pattern: str
    hides: str
    scope: Literal["line", "next-line", "file"] = "line"
    severity: str | None = None

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, pattern: str) -> str:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ValueError(f"not a regular expression: {exc}") from None
        return pattern


class ConfigSpec(Definition):
    """Where a tool's judgment is configured: the claimed files ``files`` (a ``matches``
    glob) match, as a whole; or one ``section`` of them (a TOML table such as ``tool.ruff``,
    or INI sections by glob such as ``mypy*``); or, in a Python module, the top-level
    definitions whose names match ``names`` (globs: a conftest's ``pytest_*`` hooks).
    ``of`` names whose configuration it is when not the tool's own (pytest's, under
    coverage)."""

    files: str
    section: str | None = None
    names: list[str] = []
    of: str | None = None


Level = Literal["critical", "major", "minor", "off"]  # "off": not reported at all


class SeverityGroup(Definition):
    """Rules of one tool that share a severity, a severity in test files and floors, for one
    stated reason (``title``). ``codes`` are the tool's own rule codes, exact (never a
    prefix); a floor is the lowest a workspace override may set outside test files
    (``floor``) or in them (``floor_in_tests``): docs/severity.md."""

    title: str = Field(min_length=1)
    codes: list[str] = Field(min_length=1)
    severity: Level
    in_tests: Level
    floor: Level | None = None
    floor_in_tests: Level | None = None


# the configuration files the plugin ships for the lenses that judge by its own rules
# (``ToolSpec.own_config``): package data, never a file of the reviewed project
OWN_CONFIGS = Path(__file__).resolve().parents[2] / "sensors" / "configs"


class ToolSpec(Definition):
    """One tool a runner may use; the first candidate the workspace configures wins.

    Its descriptor also says how the source suppresses its findings (``suppressions``):
    only suppressions that stood at the unit's base are honoured (sensors.suppressions);
    and where its judgment is configured (``config``): a change there is a finding
    (sensors.tool_config)."""

    tool: str
    argv: list[str]
    version: list[str] | None = None
    detect: list[str] = []
    suppressions: list[SuppressionSpec] = []
    config: list[ConfigSpec] = []
    # which claimed files it takes (a ``matches`` glob; default: the manifest's), and whether
    # they are passed after ``--`` (``files``) or it judges the project and only its findings
    # on claimed files count (``project``: tsc -p)
    files: str | None = None
    takes: Literal["files", "project"] = "files"
    # its report's format, read by a parser per format (``sensors.formats``); None: the
    # runner's own tool (checked per file and cached, its findings keep the tool's own rule
    # codes: ``F401``, never ``tool:F401``, as the ledger's stable ids and the severity table
    # are keyed by them), whose report the runner reads in ``runner_format`` (or by itself)
    format: str | None = None
    runner_format: str | None = None
    # the exit codes of a check that ran to the end; any other is an error (could not verify)
    exit_codes: list[int] = [0, 1]
    # its environment; ``{fresh_dir}`` is an empty folder outside the workspace made for each
    # run: a cache the agents could write is never read
    env: dict[str, str] = {}
    # what it says (on stderr) when it checked none of the files it was given: the check is
    # then skipped, never passed
    checked_none: str | None = None
    # a test runner: the programs a test command runs it by, and the arguments that make it
    # write its report to ``{report}`` in that format
    runs: list[str] = []
    report_args: list[str] = []
    # a test runner's coverage: the arguments that make it write a report in
    # ``coverage_format`` named ``coverage_report`` into the folder ``{coverage}`` (an argument
    # holding ``{source}`` is given once per claimed source file), and the packages one of
    # which the workspace must have installed for it, each with the arguments it adds
    coverage_args: list[str] = []
    coverage_format: str | None = None
    coverage_report: str | None = None
    coverage_packages: dict[str, list[str]] = {}
    # the tool's rules that name a defect other tools see too: its own rule code -> the
    # defect class (``review.findings.defects``), so one defect is one finding across tools
    defects: dict[str, str] = {}
    # where its rules are documented: a URL; a finding quoting a page under it keeps that page
    docs: str | None = None
    # which of its rule codes are security rules (a regex over the whole code): a SARIF
    # security alert
    security_rules: str | None = None
    # what it leaves in the workspace while checking (a folder or file name, ``*`` for any
    # text): never source (``review.source.freeze``)
    caches: list[str] = []
    # the Python distribution this plugin depends on for it, when it does: doctor reports
    # its installed version when the tool is not found to run
    package: str | None = None
    # a test runner: the test command ``init`` writes for a project whose package.json
    # depends on it (``runs``' first program)
    test_command: str | None = None
    # a runner's own tool (no ``format``): its flags for what the runner hands it, each an
    # argv fragment: ``report`` makes it print the report the runner reads, ``cache``
    # (``{cache}``) keeps its incremental cache in the review's scratch, ``python``
    # (``{python}``) types against the project's interpreter, ``shadow`` reads ``{path}``
    # from the copy ``{shadow}`` (``sensors.type_check``)
    flags: dict[str, list[str]] = {}
    # a test runner: how the lines of its output that quote an error start, quoted when its
    # report names no cause (a collection error)
    errors: list[str] = []
    # its rules' severities by exact code (``sensors.rule_severity``): a rule in no group is
    # ``minor`` (the runner's own tools) or the severity the tool reports (a described tool)
    severities: list[SeverityGroup] = []
    # a formatter whose report names files only (``file-list``): the argv that prints a file
    # (after ``--``) as the tool would format it, never writing it; its finding is then
    # located at the first line that differs
    formatted: list[str] = []
    # a lens that judges by the review's rules, not the project's: the configuration file the
    # plugin ships for it (``aidlc_review/sensors/configs/<name>``), which its argv names as
    # ``{own_config}``; no configuration file of the project is read
    own_config: str | None = Field(default=None, pattern=r"^[\w.-]+$")

    @field_validator("own_config")
    @classmethod
    def _own_config_is_shipped(cls, name: str | None) -> str | None:
        if name is not None and not (OWN_CONFIGS / name).is_file():
            raise ValueError(f"the plugin ships no configuration {name!r} ({OWN_CONFIGS})")
        return name

    @field_validator("severities")
    @classmethod
    def _one_group_per_code(cls, groups: list[SeverityGroup]) -> list[SeverityGroup]:
        seen: dict[str, str] = {}
        for group in groups:
            for code in group.codes:
                if code in seen:
                    raise ValueError(f"{code!r} is in two groups: {seen[code]!r}, {group.title!r}")
                seen[code] = group.title
        return groups

    def with_own_config(self, argv: list[str]) -> list[str]:
        """``argv`` with ``{own_config}`` the path of the configuration the plugin ships."""
        if self.own_config is None:
            return argv
        path = str(OWN_CONFIGS / self.own_config)
        return [word.replace("{own_config}", path) for word in argv]

    def finding_rule(self, code: str | None) -> str:
        """The rule a finding of this tool holds: the runner's own tools (no ``format``)
        keep the tool's code, a described tool's is ``tool:code``."""
        if self.format is None:
            return code or self.tool
        return f"{self.tool}:{code}" if code else self.tool


class RunnerSpec(Definition):
    name: str = Field(pattern=KEBAB)
    required: bool = False
    tools: list[ToolSpec] = []
    severity: dict[str, Severity] = {}
    options: dict[str, Any] = {}


class Enforcement(Definition):
    """What only this plugin's runtime enforces, nested where upstream's reader does not look.

    An installed manifest must say ``default_severity: advisory`` (upstream knows no other
    value); the severity and firing time the plugin enforces at its own gate live here.
    """

    default_severity: Literal["advisory", "blocking"]
    fire_on: Literal["write", "gate"] | None = None


class SensorManifest(Definition):
    id: str = Field(pattern=KEBAB)
    kind: Literal["deterministic"]
    command: str
    default_severity: Literal["advisory", "blocking"]
    description: str
    category: str
    fire_on: Literal["write", "gate"] | None = None
    matches: str
    input_schema: dict[str, Any] | None = None
    output_schema: dict[str, Any] | None = None
    timeout_seconds: int = Field(ge=1, le=3600)
    runner: RunnerSpec | None = None
    enforce: Enforcement | None = None

    @property
    def severity_class(self) -> str:
        """``advisory`` or ``blocking`` as this plugin's runtime enforces it."""
        return self.enforce.default_severity if self.enforce else self.default_severity
