"""One severity per rule id, from the tools' descriptors, shared by every sensor.

Each tool's descriptor (``runner.tools`` in ``sensors/aidlc-<id>.md``) may carry its rules'
severities (``severities``: groups of exact codes, never a prefix: ``F`` would also match
``FIX002`` and ``FURB``). A rule is keyed by the id its findings hold: a runner's own tool
keeps its code (ruff's ``S608``, the same defect whether the linter or the security lens
reports it, so one group for both), a described tool's is ``tool:rule`` (``eslint:no-eval``).
A rule in no group is ``minor`` for a runner's own tool, and keeps the severity its tool
gave for a described one. Each rule has a severity outside test files and one in them
(``off``: not reported there at all, an ``assert`` in a test is what tests do), and some
have floors a workspace override cannot go below (``aidlc_review.review.inputs.
workspace_settings`` refuses such an override when it reads the settings; ``tuned`` clamps
again, so a settings dict from elsewhere cannot either). Test files are the descriptors'
(the test runners' ``tests`` globs, as the review's ``Project`` has them) unless the
workspace names its own. docs/severity.md documents the table; a test keeps the two equal.

Nothing here reads a manifest at import: the table and the test globs are read on first
use (the settings of a workspace without severity overrides never need them).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import astuple, dataclass, field
from typing import TYPE_CHECKING, Any, Final

from aidlc_review.errors import InvalidInput
from aidlc_review.sensors.globs import compile_glob

if TYPE_CHECKING:
    from aidlc_review.harness.definitions.sensor import SensorManifest

LEVELS: Final = ("critical", "major", "minor", "off")  # "off": not reported
DEFAULT = "minor"


@dataclass(frozen=True)
class RuleGroup:
    """Rules that share a severity, a severity in tests and floors, for one stated reason,
    keyed by the ids their findings hold (``S608``, ``eslint:no-eval``)."""

    title: str
    codes: tuple[str, ...]
    severity: str
    in_tests: str
    floor: str | None = None  # the lowest an override may set outside test files
    floor_in_tests: str | None = None  # ... and in them

    def __post_init__(self) -> None:
        for level in (self.severity, self.in_tests, self.floor, self.floor_in_tests):
            assert level is None or level in LEVELS, level


def groups_of(manifests: Iterable[SensorManifest]) -> tuple[RuleGroup, ...]:
    """Every tool's severity groups, its codes as its findings name them; a rule id in two
    groups (of one tool or of two) is bad input naming both manifests."""
    found: list[RuleGroup] = []
    where: dict[str, str] = {}
    for manifest in manifests:
        for index, spec in enumerate(manifest.runner.tools if manifest.runner else []):
            here = f"{manifest.origin.path}: runner.tools[{index}] ({spec.tool}).severities"
            for group in spec.severities:
                codes = tuple(spec.finding_rule(code) for code in group.codes)
                for code in codes:
                    if code in where:
                        raise InvalidInput(
                            f"{here}: {code!r} already has a severity in {where[code]}"
                        )
                    where[code] = here
                levels = (group.severity, group.in_tests, group.floor, group.floor_in_tests)
                found.append(RuleGroup(group.title, codes, *levels))
    return tuple(found)


@functools.cache
def groups() -> tuple[RuleGroup, ...]:
    """The shipped descriptors' severity groups, read on first use."""
    from aidlc_review.sensors.descriptors import shipped_manifests

    return groups_of(shipped_manifests())


@functools.cache
def table() -> Mapping[str, RuleGroup]:
    """Each rule id's group."""
    return {code: group for group in groups() for code in group.codes}


@functools.cache
def floors(in_tests: bool = False) -> Mapping[str, str]:
    """The floor an override may not go below, by rule id, outside test files or in them."""
    if in_tests:
        return {code: g.floor_in_tests for code, g in table().items() if g.floor_in_tests}
    return {code: g.floor for code, g in table().items() if g.floor}


def table_key(severities: Mapping[str, RuleGroup] | None = None) -> str:
    """What a table says (the shipped descriptors' by default), as a digest: a cached
    finding's severity depends on it."""
    if severities is None:
        return _shipped_key()
    import hashlib
    import json

    rows = [[code, *astuple(group)] for code, group in sorted(severities.items())]
    return hashlib.sha256(json.dumps(rows).encode()).hexdigest()


@functools.cache
def _shipped_key() -> str:
    return table_key(table())


@functools.cache
def default_test_files() -> tuple[str, ...]:
    """Where tests live unless the workspace says otherwise (``severity.test-files``): the
    test runners' ``tests`` globs in the descriptors, the same the review's ``Project`` uses."""
    from aidlc_review.sensors.descriptors import where_tests_are

    return where_tests_are()


@functools.cache
def _default_matchers() -> tuple[Any, ...]:
    return tuple(compile_glob(glob) for glob in default_test_files())


def is_default_test_file(path: str) -> bool:
    """Whether ``path`` is a test file by the descriptors' globs."""
    return any(glob.match(path) for glob in _default_matchers())


def rank(level: str) -> int:
    """Higher is more severe (``off`` lowest)."""
    return len(LEVELS) - LEVELS.index(level)


def below(level: str, floor: str | None) -> bool:
    return floor is not None and rank(level) < rank(floor)


@dataclass(frozen=True)
class Overrides:
    """The workspace's ``[tool.aidlc-review.severity]`` as the sensors receive it (plain data in
    ``settings["severity"]``): per rule everywhere, per rule in test files, per path glob."""

    test_files: tuple[str, ...] = field(default_factory=default_test_files)
    rules: Mapping[str, str] | None = None
    tests: Mapping[str, str] | None = None
    paths: Mapping[str, Mapping[str, str]] | None = None
    # the severity table, rule id -> group; None: the shipped descriptors' (``table()``)
    severities: Mapping[str, RuleGroup] | None = field(default=None, compare=False, repr=False)

    @classmethod
    def from_settings(cls, data: Any) -> Overrides:
        if not data:
            return cls()
        return cls(
            tuple(data.get("test_files") or default_test_files()),
            dict(data.get("rules") or {}),
            dict(data.get("tests") or {}),
            {glob: dict(rules) for glob, rules in (data.get("paths") or {}).items()},
        )

    def key(self) -> Any:
        """What the findings' severities depend on, for the result cache."""
        # in the order written: a later path glob wins, so the order is part of the answer
        paths = [(g, sorted(r.items())) for g, r in (self.paths or {}).items()]
        return [
            list(self.test_files),
            sorted((self.rules or {}).items()),
            paths,
            sorted((self.tests or {}).items()),
            table_key(self.severities),
        ]

    def is_test(self, path: str) -> bool:
        return any(compile_glob(glob).match(path) for glob in self.test_files)

    def resolve(self, code: str, path: str) -> str:
        """The severity of rule ``code`` on ``path``: the table (``minor`` when not in it), then
        the workspace's overrides (everywhere, in tests, per path; a later path glob wins),
        never below a floor."""
        return self.tuned(code, path, DEFAULT)

    def tuned(self, code: str, path: str, level: str) -> str:
        """Rule ``code``'s severity on ``path``: the table's when the rule is in it, else
        ``level`` (the tool's own), with the workspace's overrides applied, never below a
        floor: the same for every tool (``eslint:no-eval``)."""
        test = self.is_test(path)
        group = (table() if self.severities is None else self.severities).get(code)
        if group is not None:
            level = group.in_tests if test else group.severity
        level = (self.rules or {}).get(code, level)
        if test:
            level = (self.tests or {}).get(code, level)
        for glob, rules in (self.paths or {}).items():
            if code in rules and compile_glob(glob).match(path):
                level = rules[code]
        floor = (group.floor_in_tests if test else group.floor) if group else None
        return floor if floor is not None and below(level, floor) else level
