"""``aidlc-review init [--unit U] PATH...``: the source manifest and the settings table.

Everything is checked before anything is written, and each file is written atomically: a
claim that escapes the workspace, names nothing, or a ``pyproject.toml`` that is not TOML
leaves the workspace as it was. An existing manifest or settings table is never
overwritten (the first is refused, the second kept and said so).
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from pathlib import Path

from aidlc_review.errors import InvalidInput
from aidlc_review.fsio import write_atomic
from aidlc_review.harness.definitions.sensor import ToolSpec
from aidlc_review.review.inputs.paths import RecordPaths
from aidlc_review.review.inputs.project import Project
from aidlc_review.review.inputs.source_manifest import claimed_files, manifest_for_paths
from aidlc_review.review.inputs.workspace_settings import OWN_FILE, TABLE, load_settings
from aidlc_review.sensors.context import is_detected
from aidlc_review.sensors.descriptors import (
    own_test_runners,
    runner_config_names,
    shipped_tools,
)
from aidlc_review.sensors.globs import filter_matching

PRE_COMMIT = """\
repos:
  - repo: https://github.com/<owner>/aidlc-code-review
    rev: v0.1.0
    hooks:
      - id: aidlc-review-verify
      - id: aidlc-review-sensors
"""


@dataclass(frozen=True)
class Initialised:
    manifest: Path
    claimed: int  # files the claim covers now
    settings: Path
    settings_written: bool  # False: the table was there already and is kept
    test_command: str | None


def init_workspace(workspace: Path, unit: str | None, claims: list[str]) -> Initialised:
    """Write the unit's source manifest and (when absent) the ``[tool.aidlc-review]`` table."""
    paths = RecordPaths.resolve(workspace, unit)
    if not claims:
        raise InvalidInput("init: name the source to review (PATH..., files or folders)")
    if paths.manifest.exists():
        raise InvalidInput(f"{paths.manifest}: exists already; edit it, or delete it to claim anew")
    writes = [_claim(paths.workspace, c) for c in claims]
    manifest = manifest_for_paths(writes, paths.workspace, unit)  # the same checks as a read
    claimed = len(claimed_files(manifest, paths.workspace))
    if not claimed:
        raise InvalidInput(f"init: {', '.join(claims)}: no files there to review")
    pyproject = paths.workspace / "pyproject.toml"
    if not pyproject.is_file() and (paths.workspace / "package.json").is_file():
        pyproject = paths.workspace / OWN_FILE  # an npm project: a language-neutral file
        table = _own_settings(paths.workspace, pyproject)
    else:
        table = _settings_table(paths.workspace, pyproject)
    data: dict[str, object] = {"stage": "code-generation", "unit": unit, "version": 1}
    data["writes"] = [{"path": w} for w in writes]
    if unit is None:
        del data["unit"]
    write_atomic(paths.manifest, json.dumps(data, indent=2) + "\n")
    if table is not None:
        write_atomic(pyproject, table)
        load_settings(paths.workspace)  # what was written reads back as valid settings
    settings = load_settings(paths.workspace).for_unit(unit)
    command = settings.test_command
    shown = " ".join(command) if isinstance(command, list) else command
    return Initialised(paths.manifest, claimed, pyproject, table is not None, shown)


def _claim(workspace: Path, claim: str) -> str:
    """A workspace-relative claim: a folder ends in ``/``, as manifests write folders."""
    path = (workspace / claim) if not Path(claim).is_absolute() else Path(claim)
    try:
        relative = path.resolve().relative_to(workspace)
    except ValueError:
        raise InvalidInput(f"init: {claim}: outside the workspace {workspace}") from None
    if not path.exists():
        raise InvalidInput(f"init: {claim}: no such file or folder")
    shown = relative.as_posix()
    return f"{shown}/" if path.is_dir() and shown != "." else ("./" if shown == "." else shown)


def _own_settings(workspace: Path, path: Path) -> str | None:
    """``.aidlc-review.toml`` for a project without ``pyproject.toml`` (None: it exists)."""
    if path.exists():
        return None
    lines = ["# How aidlc-review runs this project (docs/settings.md)."]
    command = _js_test_command(workspace)
    if command is not None:
        lines.append(f'test-command = "{command}"')
    return "\n".join(lines) + "\n"


def _js_test_command(workspace: Path) -> str | None:
    """The test command of the first test runner ``package.json`` depends on whose
    descriptor gives one (``test_command``)."""
    try:
        package = json.loads((workspace / "package.json").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    if not isinstance(package, dict):
        return None
    named = {**package.get("dependencies", {}), **package.get("devDependencies", {})}
    commands = [(spec.runs[0].split()[0], spec.test_command) for spec in _test_runners()]
    return next((command for program, command in commands if program in named), None)


def _test_runners() -> list[ToolSpec]:
    return [spec for _sensor, spec in shipped_tools() if spec.runs and spec.test_command]


def _settings_table(workspace: Path, pyproject: Path) -> str | None:
    """``pyproject.toml``'s new text with the table added, or None to leave it as it is."""
    text = pyproject.read_text(encoding="utf-8") if pyproject.is_file() else ""
    try:
        parsed = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InvalidInput(f"{pyproject}: not valid TOML: {exc}") from None
    if "aidlc-review" in parsed.get("tool", {}):
        return None
    lines = ["# How aidlc-review runs this project (docs/settings.md).", TABLE]
    command = _python_test_command(workspace)
    if command is not None:
        lines.append(f'test-command = "{command}"')
    table = "\n".join(lines) + "\n"
    return text.rstrip("\n") + "\n\n" + table if text.strip() else table


def _python_test_command(workspace: Path) -> str | None:
    """The test command of the first Python test runner (one the coverage runner measures
    itself) the workspace configures (its descriptor's ``config``), or that takes one of the
    project's test files."""
    tests = Project.read(workspace, None).test_files
    for spec in own_test_runners():
        takes = filter_matching(spec.files, list(tests)) if spec.files else list(tests)
        if spec.test_command and (_configures(workspace, spec) or takes):
            return spec.test_command
    return None


def _configures(workspace: Path, spec: ToolSpec) -> bool:
    """A file at the workspace's top holds the runner's configuration (its section, when
    the descriptor names one)."""
    names = runner_config_names(spec)
    where = [f"{name}:{section}" if section else name for name, section in names]
    return bool(where) and is_detected(spec.model_copy(update={"detect": where}), workspace)
