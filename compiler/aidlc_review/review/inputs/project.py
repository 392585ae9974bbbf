"""The project one review run looks at, read once (STYLE.md "read the project once").

A ``Project`` is built when the unit's context is (``UnitContext.load``) and handed down
through it: the ecosystems the workspace's files say it has, its bin dirs, the workspace's
own settings (``.aidlc-review.toml``, ``[tool.aidlc-review]`` or ``"aidlc-review"``, parsed
and checked once, so bad input is refused before anything runs) and the settings in force
at a base (the base's table, read once per base: ``workspace_settings.in_force_at``).
Nothing below it reads the settings file again during the run. It also carries where the
project's tests are (the test runners' descriptors' ``tests`` globs, read once) and, on first
use, the test files the workspace holds, and the test command.

The run is judged by the settings as they stood when it started: an agent of the run that
edits the table between passes changes neither the run's budget, diff size, filter mode
nor its base (the table at the base judges the change anyway; the edit takes effect on
the next run, and as a change to the table it is shown like any other).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path, PurePosixPath
from typing import Any

from aidlc_review.gitdoor import git
from aidlc_review.review.inputs.workspace_settings import (
    InForce,
    OwnSettings,
    UnitSettings,
    WorkspaceSettings,
    in_force_at,
    read_settings,
)
from aidlc_review.review.source.tool_names import tool_names
from aidlc_review.sensors.globs import compile_glob

# where the sensors look for a workspace's own tools, as ``sensors.described.BIN_DIRS`` says
# (a test holds the two equal): named here so loading a unit's context for a gate does not
# import the sensors' runners
BIN_DIRS = ("node_modules/.bin", ".venv/bin")
# what in the workspace's top folder says which languages the project is written in
ECOSYSTEM_FILES = (
    ("go", ("go.mod",)),
    ("javascript", ("package.json",)),
    ("python", ("pyproject.toml", "setup.cfg")),
    ("typescript", ("tsconfig.json",)),
)


@dataclass(frozen=True)
class Project:
    workspace: Path
    unit: str | None
    ecosystems: tuple[str, ...]
    bin_dirs: tuple[Path, ...]  # the workspace's own, those that exist, before PATH
    own: OwnSettings  # what the workspace's settings file says (the change's own table)
    # where its tests are: the test runners' descriptors' globs (``tests``), read once (from
    # the sealed memo of the descriptors, ``review.source.tool_names``)
    test_globs: tuple[str, ...] = field(default_factory=lambda: tool_names().tests)
    # the settings in force per base commit, read on first use (the base is known once the
    # unit's baseline is); a cache, not part of what the project is
    _at_base: dict[str, InForce] = field(
        default_factory=dict, compare=False, repr=False, hash=False
    )
    # the workspace's test files, listed on first use and shared by every unit's view
    _tests: list[tuple[str, ...]] = field(
        default_factory=list, compare=False, repr=False, hash=False
    )

    @classmethod
    def read(cls, workspace: Path, unit: str | None) -> Project:
        """The project at ``workspace`` for ``unit``: its settings parsed and checked now."""
        return cls(
            workspace, unit, ecosystems(workspace), bin_dirs(workspace), read_settings(workspace)
        )

    def for_unit(self, unit: str | None) -> Project:
        """The same project seen for another unit (nothing read again)."""
        if unit == self.unit:
            return self
        return replace(self, unit=unit, _at_base=self._at_base, _tests=self._tests)

    @property
    def settings(self) -> WorkspaceSettings:
        """The workspace's own settings (what the change says)."""
        return self.own.settings

    @cached_property
    def unit_settings(self) -> UnitSettings:
        """The workspace's own settings for the unit: its table over the workspace's."""
        return self.own.settings.for_unit(self.unit)

    def in_force(self, base: str | None) -> InForce:
        """The settings that judge the unit at ``base`` (the base's table, with the note
        saying why it is not the workspace's); the workspace's own without a base."""
        if base is None:
            return InForce(self.own.settings, None)
        if base not in self._at_base:
            self._at_base[base] = in_force_at(self.workspace, base, self.own)
        return self._at_base[base]

    def test_command(self, base: str | None) -> str | list[str] | None:
        """The unit's test command as the settings in force at ``base`` say it."""
        return self.in_force(base).settings.for_unit(self.unit).test_command

    def is_test_file(self, path: str) -> bool:
        """Whether a workspace-relative path is one of the project's tests."""
        return any(glob.match(path) for glob in self._test_matchers)

    @cached_property
    def _test_matchers(self) -> tuple[Any, ...]:
        return tuple(compile_glob(glob) for glob in self.test_globs)

    @property
    def test_files(self) -> tuple[str, ...]:
        """The project's test files, sorted (what git tracks or would add; outside git,
        the workspace's tree without hidden folders and installed packages), listed once."""
        if not self._tests:
            files = workspace_files(self.workspace)
            self._tests.append(tuple(p for p in files if self.is_test_file(p)))
        return self._tests[0]


def ecosystems(workspace: Path) -> tuple[str, ...]:
    """The ecosystems the workspace's top folder has a project file of, sorted."""
    return tuple(
        name
        for name, files in ECOSYSTEM_FILES
        if any((workspace / file).is_file() for file in files)
    )


# folders no project keeps its own tests in: installed packages and environments
_NOT_THE_PROJECTS = frozenset({"node_modules", "venv", "env", "__pycache__", "site-packages"})


def workspace_files(workspace: Path) -> list[str]:
    """The workspace's files, workspace-relative POSIX paths: git's tracked and untracked
    files it does not ignore, else (no git) a walk that skips hidden and installed folders."""
    listed = git(workspace, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    if listed is not None:
        return sorted({os.fsdecode(name) for name in listed.split(b"\0") if name})
    found = []
    for root, dirs, files in os.walk(workspace):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _NOT_THE_PROJECTS)
        here = PurePosixPath(Path(root).relative_to(workspace).as_posix())
        found += [(here / name).as_posix() for name in files]
    return sorted(found)


def bin_dirs(workspace: Path) -> tuple[Path, ...]:
    """The workspace's own bin dirs that exist, in the order the sensors look in them."""
    return tuple(workspace / d for d in BIN_DIRS if (workspace / d).is_dir())
