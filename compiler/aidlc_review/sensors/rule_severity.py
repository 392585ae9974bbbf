"""One severity per ruff rule code, shared by the linter and the security lens.

Both sensors run ruff; a rule means the same defect whichever of them reports it, so its
severity is looked up here by its exact code (``F401``, never a prefix: ``F`` would also
match ``FIX002`` and ``FURB``). A rule not in the table is ``minor``. Each rule has a
severity outside test files and one in them (``off``: not reported there at all, an
``assert`` in a test is what tests do), and some have floors a workspace override cannot
go below (``aidlc_review.review.inputs.workspace_settings`` refuses such an override when it reads
``pyproject.toml``; ``resolve`` clamps again, so a settings dict from elsewhere cannot either).
docs/severity.md documents the table; a test keeps the two equal.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from aidlc_review.sensors.globs import compile_glob

LEVELS: Final = ("critical", "major", "minor", "off")  # "off": not reported
DEFAULT = "minor"
# where tests live unless the workspace says otherwise (``severity.test-files``)
TEST_FILES: Final = (
    "**/test_*.py",
    "**/*_test.py",
    "**/conftest.py",
    "**/tests/**",
    "**/test/**",
)


@dataclass(frozen=True)
class RuleGroup:
    """Rules that share a severity, a severity in tests and floors, for one stated reason."""

    title: str
    codes: tuple[str, ...]
    severity: str
    in_tests: str
    floor: str | None = None  # the lowest an override may set outside test files
    floor_in_tests: str | None = None  # ... and in them

    def __post_init__(self) -> None:
        for level in (self.severity, self.in_tests, self.floor, self.floor_in_tests):
            assert level is None or level in LEVELS, level


_PYFLAKES = (
    "F401 F402 F403 F404 F405 F406 F407 F501 F502 F503 F504 F505 F506 F507 F508 F509 "
    "F521 F522 F523 F524 F525 F601 F602 F621 F622 F631 F632 F633 F634 F701 F702 F704 "
    "F706 F707 F722 F811 F821 F822 F823 F841 F842 F901"
)
_BUGBEAR = (
    "B002 B003 B004 B005 B006 B007 B008 B011 B012 B013 B014 B015 B016 B017 B018 B019 "
    "B020 B021 B022 B023 B024 B025 B026 B027 B029 B030 B031 B032 B033 B034 B035 B039"
)

GROUPS: Final = (
    RuleGroup(
        "the file does not parse",
        ("E902", "E999", "invalid-syntax", "syntax"),
        "critical",
        "critical",
        floor="critical",
        floor_in_tests="critical",
    ),
    RuleGroup(
        "injection: SQL, shell commands, exec and eval built from data",
        tuple("S102 S307 S601 S602 S604 S605 S608 S609 S610 S611".split()),
        "major",
        "major",
        floor="major",
    ),
    RuleGroup(
        "unsafe deserialization (a pickle round-trip in a test is what tests do)",
        ("S301", "S302", "S506"),
        "major",
        "minor",
        floor="major",
    ),
    RuleGroup(
        "hard-coded credentials (a value that cannot be one is minor, see below)",
        ("S105", "S106", "S107"),
        "major",
        "off",
    ),
    RuleGroup(
        "weak hashes, ciphers and keys",
        ("S303", "S304", "S305", "S324", "S505"),
        "major",
        "minor",
    ),
    RuleGroup("non-cryptographic random", ("S311",), "major", "off"),
    RuleGroup(
        "TLS and SSH verification switched off or insecure protocols",
        ("S323", "S501", "S502", "S503", "S507"),
        "major",
        "minor",
    ),
    RuleGroup(
        "network calls without a timeout, predictable temporary files, archive "
        "extraction outside the target folder (path traversal)",
        ("S113", "S306", "S202"),
        "major",
        "minor",
    ),
    RuleGroup(
        "a bare except: catches KeyboardInterrupt and SystemExit", ("E722",), "major", "minor"
    ),
    RuleGroup("assert (tests assert; elsewhere it vanishes under -O)", ("S101",), "minor", "off"),
    RuleGroup(
        "pyflakes: undefined, unused and redefined names",
        tuple(_PYFLAKES.split()),
        "major",
        "major",
    ),
    RuleGroup("bugbear: likely bugs", tuple(_BUGBEAR.split()), "major", "major"),
)


def _index() -> dict[str, RuleGroup]:
    found: dict[str, RuleGroup] = {}
    for group in GROUPS:
        for code in group.codes:
            assert code not in found, f"{code} is in two groups"
            found[code] = group
    return found


TABLE: Final = _index()
# the floor violated by lowering a rule outside tests, or in tests, by rule code
FLOORS: Final = {code: g.floor for code, g in TABLE.items() if g.floor}
FLOORS_IN_TESTS: Final = {code: g.floor_in_tests for code, g in TABLE.items() if g.floor_in_tests}


def rank(level: str) -> int:
    """Higher is more severe (``off`` lowest)."""
    return len(LEVELS) - LEVELS.index(level)


def below(level: str, floor: str | None) -> bool:
    return floor is not None and rank(level) < rank(floor)


@dataclass(frozen=True)
class Overrides:
    """The workspace's ``[tool.aidlc-review.severity]`` as the sensors receive it (plain data in
    ``settings["severity"]``): per rule everywhere, per rule in test files, per path glob."""

    test_files: tuple[str, ...] = TEST_FILES
    rules: Mapping[str, str] | None = None
    tests: Mapping[str, str] | None = None
    paths: Mapping[str, Mapping[str, str]] | None = None

    @classmethod
    def from_settings(cls, data: Any) -> Overrides:
        if not data:
            return cls()
        return cls(
            tuple(data.get("test_files") or TEST_FILES),
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
        ]

    def is_test(self, path: str) -> bool:
        return any(compile_glob(glob).match(path) for glob in self.test_files)

    def resolve(self, code: str, path: str) -> str:
        """The severity of rule ``code`` on ``path``: the table, then the workspace's
        overrides (everywhere, in tests, per path; a later path glob wins), never below a floor."""
        test = self.is_test(path)
        group = TABLE.get(code)
        level = (group.in_tests if test else group.severity) if group else DEFAULT
        return self.tuned(code, path, level)

    def tuned(self, code: str, path: str, level: str) -> str:
        """``level`` (the tool's own, or the table's) with the workspace's overrides for rule
        ``code`` applied, never below a floor: the same for every tool (``eslint:no-eval``)."""
        test = self.is_test(path)
        level = (self.rules or {}).get(code, level)
        if test:
            level = (self.tests or {}).get(code, level)
        for glob, rules in (self.paths or {}).items():
            if code in rules and compile_glob(glob).match(path):
                level = rules[code]
        floor = (FLOORS_IN_TESTS if test else FLOORS).get(code)
        return floor if floor is not None and below(level, floor) else level
