"""dependencies: every dependency the unit adds or loosens, against the base revision.

The claimed dependency files (``pyproject.toml``, ``requirements*.txt``, Python lock
files; ``package.json`` and npm, yarn and pnpm lock files) are read as they are now and
as ``git show <base>:<path>`` gives them; the base is the run setting ``base_revision``,
else ``HEAD``. What the change adds or loosens is a finding unless the approved list
covers it. The approved list and the audit command come from the workspace's settings
file *at the base* (the first of ``.aidlc-review.toml``, ``pyproject.toml``'s
``[tool.aidlc-review]``, ``package.json``'s ``"aidlc-review"`` there): a change cannot
approve its own dependencies or switch its own audit off. Nothing is ever installed.
"""

from __future__ import annotations

import json
import shlex
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aidlc_review.gitdoor import GIT_ENV, git_argv
from aidlc_review.sensors.context import SensorContext, SensorError, nothing_to_check
from aidlc_review.sensors.dependency_changes import (
    Change,
    approval_problem,
    approved_by,
    changes,
)
from aidlc_review.sensors.dependency_files import Declarations, Declared, read_declarations
from aidlc_review.sensors.results import CheckFinding, CheckResult, judged
from aidlc_review.sensors.tools import ToolRun, find_tool, last_line

TABLE = "tool.aidlc-review"
# where the settings live, the first that exists wins (as the review reads them)
SETTINGS_FILES = (".aidlc-review.toml", "pyproject.toml", "package.json")


def run(ctx: SensorContext) -> CheckResult:
    if not ctx.files:
        return nothing_to_check(ctx)
    git = _Git(ctx, str(ctx.settings.get("base_revision") or "HEAD"))
    at_base, base_file = _settings(git.show, f" at {git.base}")
    now, now_file = _settings_now(ctx)
    policy = _Policy(
        _approvals(at_base, base_file) + _practices(ctx, git),
        _approvals(now, now_file),
        git.base,
    )
    changed = {
        path: _changes(
            read_declarations(path, git.show(path)),
            read_declarations(path, _read(ctx.workspace / path)),
        )
        for path in ctx.files
    }
    declared = {c.name for items in changed.values() for c, _ in items if c.group != "lock"}
    found: list[CheckFinding] = []
    for path, items in changed.items():
        plain = [(c, d) for c, d in items if c.group != "lock"]
        locked = [(c, d) for c, d in items if c.group == "lock" and c.kind == "added"]
        found += [f for c, d in plain if (f := policy.judge(ctx, path, c, d)) is not None]
        found += _lock_finding(
            ctx, path, [(c, d) for c, d in locked if c.name not in declared], policy
        )
    audit = _audit(ctx, at_base, found)
    details = {"base": git.base, "approved": policy.used, "audit": audit}
    return judged(ctx.name, found, f"git show {git.base}:<{len(ctx.files)} files>", details=details)


Changed = list[tuple[Change, Declared | None]]


def _changes(before: Declarations, now: Declarations) -> Changed:
    return [(c, now.items.get((c.group, c.name))) for c in changes(before, now)]


@dataclass
class _Policy:
    """The approvals in force (on the base) and those only the change itself adds."""

    approvals: list[str]  # entries as written, each read in a declaration's own syntax
    self_approved: list[str]
    base: str
    used: list[str] = field(default_factory=list)

    def covers(self, path: str, declared: Declared | None) -> bool:
        if declared is None:
            return False
        approval = approved_by(declared, self.approvals)
        if approval is not None:
            self.used.append(f"{path}: {declared.requirement} (approved: {approval})")
        return approval is not None

    def note(self, declared: Declared | None) -> str:
        if declared is None or approved_by(declared, self.self_approved) is None:
            return ""
        return (
            "; only this change lists it in approved-dependencies, and an approval counts "
            f"once it is on the base revision ({self.base})"
        )

    def judge(
        self, ctx: SensorContext, path: str, change: Change, declared: Declared | None
    ) -> CheckFinding | None:
        if self.covers(path, declared):
            return None
        where = _group_label(change.group)
        if change.group == "file":
            message = (
                f"{path} cannot be read ({change.now}): none of its dependencies was checked, "
                "review it by hand"
            )
        elif change.kind == "unreadable":
            message = (
                f"new dependency line this sensor cannot read, review it by hand: {change.now}"
            )
        elif change.kind == "added":
            message = f"added dependency {change.now} ({where}), not on the approved list"
        else:
            message = (
                f"loosened dependency {change.name}: {change.before} -> {change.now} "
                f"({where}), not on the approved list"
            )
        message += self.note(declared)
        return ctx.finding(
            path, change.line, message, f"{ctx.name}/{change.kind}", change.kind, "major"
        )


def _lock_finding(
    ctx: SensorContext, path: str, added: Changed, policy: _Policy
) -> list[CheckFinding]:
    """One finding per lock file for the packages it adds that nothing declares or approves."""
    names = sorted(c.now for c, d in added if not policy.covers(path, d))
    if not names:
        return []
    message = (
        f"the lock file adds {len(names)} package(s) no claimed declaration adds and the "
        f"approved list does not cover: {', '.join(names)}"
    )
    return [ctx.finding(path, None, message, f"{ctx.name}/added", "added", "major")]


def _group_label(group: str) -> str:
    kind, _, name = group.partition(":")
    labels = {
        "dependencies": "project dependencies",
        "optional": f"optional group {name!r}",
        "group": f"dependency group {name!r}",
        "requirements": "requirements",
        "lock": "lock file",
        "npm": f"package.json {name}",
    }
    return labels.get(kind, group)


class _Git:
    """``git show <base>:<path>`` from the workspace, the base checked once."""

    def __init__(self, ctx: SensorContext, base: str) -> None:
        if base.startswith("-"):
            raise SensorError(f"base revision {base!r} looks like an option")
        found = find_tool("git", ctx.settings.get("tool_path"))
        if found is None:
            raise SensorError("git not found on PATH (needed to compare with the base revision)")
        self.ctx, self.git, self.base = ctx, str(found), base
        run = self._git(["rev-parse", "--verify", "--quiet", f"{base}^{{commit}}"])
        if run.returncode != 0:
            raise SensorError(
                f"base revision {base!r} not found in the workspace's git repository: "
                f"{last_line(run.stderr, 200) if run.stderr.strip() else 'no such commit'}"
            )

    def _git(self, args: list[str], paths: list[str] | None = None) -> ToolRun:
        argv = git_argv(self.ctx.workspace, args, paths or (), program=self.git)
        return self.ctx.run(argv, env=GIT_ENV)

    def show(self, path: str) -> str | None:
        """The file's text at the base; None when it did not exist there."""
        listed = self._git(["ls-tree", "--name-only", self.base], paths=[path])
        if listed.returncode != 0 or not listed.stdout.strip():
            return None
        run = self._git(["show", f"{self.base}:./{path}"])
        if run.returncode != 0:
            raise SensorError(f"git show {self.base}:{path} failed: {last_line(run.stderr)}")
        return run.stdout


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise SensorError(f"{path.name}: unreadable: {exc}") from None


def _settings(show: Callable[[str], str | None], at: str) -> tuple[dict[str, Any], str]:
    """The review's settings table from the first settings file ``show`` finds (empty
    without one), and where it was read (``pyproject.toml at HEAD``)."""
    for name in SETTINGS_FILES:
        text = show(name)
        if text is None:
            continue
        where = f"{name}{at}"
        if name == "package.json":
            try:
                data = json.loads(text)
            except json.JSONDecodeError as exc:
                raise SensorError(f"{where}:{exc.lineno}: not valid JSON: {exc.msg}") from None
            table = data.get("aidlc-review", {}) if isinstance(data, dict) else {}
        else:
            try:
                data = tomllib.loads(text)
            except tomllib.TOMLDecodeError as exc:
                raise SensorError(f"{where}: not valid TOML: {exc}") from None
            own = name == SETTINGS_FILES[0]  # its top level is the table
            table = data if own else data.get("tool", {}).get("aidlc-review")
        return (table if isinstance(table, dict) else {}), where
    return {}, f"pyproject.toml{at}"


def _settings_now(ctx: SensorContext) -> tuple[dict[str, Any], str]:
    """The workspace's own settings, only to say that an approval there does not count yet:
    a file that does not parse approves nothing (a claimed one is judged on its own)."""
    try:
        return _settings(lambda name: _read(ctx.workspace / name), "")
    except SensorError:
        return {}, "the settings file"


def _approvals(table: dict[str, Any], where: str) -> list[str]:
    entries = table.get("approved-dependencies", [])
    root = {SETTINGS_FILES[0]: "$", "package.json": "$.aidlc-review"}
    key = f"{root.get(where.split(' ')[0], f'$.{TABLE}')}.approved-dependencies"
    if not isinstance(entries, list):
        raise SensorError(f"{where}: {key}: must be a list of requirements")
    for index, entry in enumerate(entries):
        if not isinstance(entry, str):
            raise SensorError(f"{where}: {key}[{index}]: must be a string, got {entry!r}")
        if (reason := approval_problem(entry)) is not None:
            raise SensorError(f"{where}: {key}[{index}]: not a requirement: {reason}")
    return list(entries)


def _practices(ctx: SensorContext, git: _Git) -> list[str]:
    """Approvals listed under an "Approved dependencies" heading of the record's
    team-practices file (run setting ``team_practices``), as the file stands at the base."""
    name = ctx.settings.get("team_practices")
    if not name:
        return []
    path = Path(str(name))
    if path.is_absolute():
        path = path.resolve()
        if not path.is_relative_to(ctx.workspace):
            return []  # outside the repository: nothing at the base to trust
        path = path.relative_to(ctx.workspace)
    text = git.show(path.as_posix()) or ""
    where = f"{path.as_posix()} at {git.base}"
    approvals, inside = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("#"):
            inside = line.lstrip("#").strip().lower() == "approved dependencies"
        elif inside and line.lstrip().startswith(("- ", "* ")):
            entry = line.lstrip()[2:].strip().strip("`")
            if (reason := approval_problem(entry)) is not None:
                raise SensorError(f"{where}:{number}: not a requirement: {reason}")
            approvals.append(entry)
    return approvals


def _audit(ctx: SensorContext, table: dict[str, Any], found: list[CheckFinding]) -> dict[str, Any]:
    """Run the workspace's own dependency audit when the base configures one."""
    command = table.get("dependency-audit")
    if command is None:
        return {"status": "skipped", "reason": f"no {TABLE} dependency-audit configured"}
    argv = shlex.split(command) if isinstance(command, str) else command
    if not isinstance(argv, list) or not argv or not all(isinstance(a, str) for a in argv):
        raise SensorError(f"$.{TABLE}.dependency-audit: must be a command or a list of strings")
    shown = " ".join([Path(argv[0]).name, *argv[1:]])
    tool = find_tool(argv[0], ctx.settings.get("tool_path"))
    if tool is None:
        message = f"could not verify: the configured dependency audit `{shown}` is not installed"
        found.append(
            ctx.finding("", None, message, f"{ctx.name}/audit", "audit", "major", identity=shown)
        )
        return {"status": "error", "command": shown, "reason": "not installed"}
    run = ctx.run([str(tool), *argv[1:]])
    if run.returncode == 0:
        return {"status": "passed", "command": shown}
    said = last_line(run.stdout + "\n" + run.stderr, 300)
    message = f"the dependency audit `{shown}` exited {run.returncode}: {said}"
    found.append(
        ctx.finding("", None, message, f"{ctx.name}/audit", "audit", "major", identity=shown)
    )
    return {"status": "failed", "command": shown, "exit": run.returncode}
