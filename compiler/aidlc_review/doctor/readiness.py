"""Whether a workspace is ready to be reviewed: its units, the test command's interpreter and
what it imports, and which sensors will run or be skipped, and why.

Read-only, like the rest of ``doctor``: the one process started is the project interpreter
asked what it can import (nothing is installed, nothing imported into this process). A
problem is a fact shown, never an error: doctor is where a broken setup is looked at.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

from aidlc_review.errors import InvalidInput
from aidlc_review.harness.definitions.sensor import SensorManifest
from aidlc_review.review.inputs.paths import RecordPaths
from aidlc_review.review.inputs.source_manifest import claimed_files, read_source_manifest
from aidlc_review.review.inputs.workspace_settings import load_settings
from aidlc_review.sensors.context import is_detected
from aidlc_review.sensors.descriptors import runner_module, testing_packages
from aidlc_review.sensors.globs import filter_matching
from aidlc_review.sensors.manifests import load_sensor_manifests
from aidlc_review.sensors.project_env import (
    Interpreter,
    command_argv,
    interpreter_for,
    runner_of_command,
)
from aidlc_review.sensors.tools import find_tool, run_tool

PROBE_SECONDS = 30.0
# run by the project's interpreter: for each module, its version (or "" when it has none)
# when it can be imported, else null; find_spec looks without importing the module
_PROBE = """\
import importlib.metadata as md, importlib.util as iu, json, sys
def seen(name):
    try:
        spec = iu.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    try:
        return md.version(name)
    except md.PackageNotFoundError:
        return ""
print(json.dumps({name: seen(name) for name in sys.argv[1:]}))
"""


def workspace_readiness(workspace: Path, harness: Path | None) -> dict[str, Any]:
    """Units found, the test command's interpreter and its imports, each sensor's fate."""
    try:
        settings = load_settings(workspace)
    except InvalidInput as exc:
        return {"problem": str(exc)}
    command = settings.test_command
    facts: dict[str, Any] = {"units": _units(workspace), "test_command": _shown(command)}
    interpreter = interpreter_for(workspace, command) if command else None
    facts["interpreter"] = _interpreter(workspace, interpreter) if interpreter else None
    try:
        manifests = load_sensor_manifests(harness)
    except InvalidInput as exc:
        facts["sensors"] = {"problem": str(exc)}
        return facts
    claimed = _claimed(workspace)
    facts["sensors"] = {m.id: _fate(m, workspace, facts, claimed) for m in manifests}
    return facts


def _units(workspace: Path) -> list[str]:
    try:
        paths = RecordPaths.resolve(workspace, None, None, None)
    except InvalidInput:
        return []
    construction = paths.record / "construction"
    return sorted(
        p.parent.parent.name for p in paths.all_manifests() if p.parent.parent != construction
    )


def _shown(command: Any) -> str | None:
    return " ".join(command_argv(command)) if command else None


def _interpreter(workspace: Path, interpreter: Interpreter) -> dict[str, Any]:
    package = _package(workspace)
    names = [*testing_packages(), *([package] if package else [])]
    run = run_tool([str(interpreter.path), "-c", _PROBE, *names], workspace, PROBE_SECONDS)
    try:
        seen = json.loads(run.stdout) if run.returncode == 0 else None
    except json.JSONDecodeError:
        seen = None
    found: dict[str, Any] = {"path": str(interpreter.path), "how": interpreter.how}
    if not isinstance(seen, dict):
        found["problem"] = f"it does not run: exit {run.returncode}"
        return found
    found["imports"] = {name: seen.get(name) for name in names}
    found["package"] = package
    return found


def _package(workspace: Path) -> str | None:
    """The workspace's own importable package: ``[project].name`` as a module name."""
    pyproject = workspace / "pyproject.toml"
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    name = data.get("project", {}).get("name") if isinstance(data, dict) else None
    return name.replace("-", "_").replace(".", "_").lower() if isinstance(name, str) else None


def _claimed(workspace: Path) -> list[str] | None:
    """Every file the units claim now (None: no unit, or a manifest that does not read)."""
    try:
        paths = RecordPaths.resolve(workspace, None, None, None)
        manifests = paths.all_manifests()
        found = {
            name
            for manifest in manifests
            for name in claimed_files(read_source_manifest(manifest, workspace), workspace)
        }
    except InvalidInput:
        return None
    return sorted(found) if manifests else None


def _fate(
    manifest: SensorManifest, workspace: Path, facts: dict[str, Any], claimed: list[str] | None
) -> dict[str, Any]:
    runner = manifest.runner
    if runner is not None and runner.tools and claimed is not None:
        taking = [t for t in runner.tools if filter_matching(t.files or manifest.matches, claimed)]
        if not taking:  # a tool that would judge none of the units' files does not "run"
            return {"runs": False, "why": "no claimed file is one its tools take"}
        runner = runner.model_copy(update={"tools": taking})
    if runner is None:
        return {"runs": False, "why": f"no runner block (upstream fires it: {manifest.command})"}
    if runner.name == "coverage":
        blocked = _coverage_blocked(facts)
        if blocked:
            return {"runs": False, "why": blocked}
        return {"runs": True, "why": f"the test command on {facts['interpreter']['path']}"}
    if not runner.tools:
        return {"runs": True, "why": "built in"}
    configured = [spec for spec in runner.tools if is_detected(spec, workspace)]
    if not configured:
        own = [spec for spec in runner.tools if spec.format is None] or runner.tools
        looked = sorted({entry for spec in own for entry in spec.detect})
        return {"runs": False, "why": f"the workspace configures none ({', '.join(looked)})"}
    for spec in configured:
        path = find_tool(spec.tool)
        if path is not None:
            return {"runs": True, "why": f"{spec.tool} at {path}"}
    missing = f"{configured[0].tool} not found on PATH"
    return {
        "runs": False,
        "why": missing + (" (required: blocks READY)" if runner.required else ""),
    }


def _coverage_blocked(facts: dict[str, Any]) -> str | None:
    """Why the coverage sensor cannot measure, with the fix; None when it can."""
    if facts["test_command"] is None:
        return "no test-command in [tool.aidlc-review]"
    found = facts["interpreter"]
    if found is None:
        return "no interpreter for the test command in the workspace's venv or on PATH"
    if "problem" in found:
        return f"the test command's interpreter {found['path']}: {found['problem']}"
    runner = runner_of_command(facts["test_command"])
    module = runner_module(runner) if runner is not None else None
    if runner is not None and module and found["imports"].get(runner.package or module) is None:
        return (
            f"the test command's interpreter {found['path']} cannot import {module}: "
            f"install {runner.package or module} in the project environment"
        )
    return None


def render_readiness(facts: dict[str, Any]) -> list[str]:
    """The readiness facts as lines for a person."""
    if "problem" in facts:
        return [f"workspace: not ready ({facts['problem']})"]
    units = facts["units"]
    lines = [f"units: {', '.join(units)}" if units else "units: none found (no source manifest)"]
    lines.append(f"test command: {facts['test_command'] or 'none (test-command not set)'}")
    found = facts["interpreter"]
    if found is not None:
        lines.append(f"  interpreter: {found['path']} ({found['how']})")
        lines += [f"  {line}" for line in _import_lines(found)]
    sensors = facts["sensors"]
    if "problem" in sensors:
        return [*lines, f"sensors: unknown ({sensors['problem']})"]
    for name, fate in sensors.items():
        lines.append(f"sensor {name}: {'runs' if fate['runs'] else 'skipped'} ({fate['why']})")
    return lines


def _import_lines(found: dict[str, Any]) -> list[str]:
    if "problem" in found:
        return [f"problem: {found['problem']}"]
    shown = []
    for name, version in found["imports"].items():
        if version is None:
            said = "no" + (" (the review's own coverage.py is used)" if name == "coverage" else "")
        else:
            said = f"yes {version}".rstrip()
        shown.append(f"imports {name}: {said}")
    return shown
