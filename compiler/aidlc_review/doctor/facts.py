"""What ``doctor`` reports: the tool, its definitions, the harness, the tools and the record.

Pure look-ups: nothing is written and nothing fails but bad input (a ``--harness`` that is
not a directory). A missing tool is a fact ("missing"), not an error.
"""

from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from aidlc_review import __version__
from aidlc_review.doctor.readiness import workspace_readiness
from aidlc_review.errors import InvalidInput
from aidlc_review.harness.layout import HarnessLayout, in_checkout, plugin_root
from aidlc_review.harness.review_plan import (
    LEDGER_PATH,
    PLAN_PATH,
    broken_parts,
    read_review_plan,
)
from aidlc_review.install.ledger import read_ledger
from aidlc_review.review.inputs.intent import active_intent_record, upstream_harness
from aidlc_review.sensors.descriptors import shipped_tools
from aidlc_review.sensors.tools import find_tool, tool_version
from aidlc_review.upstream.tools import find_bun
from aidlc_review.upstream.version import engine_version

ToolFacts = tuple[str, str | None, list[str] | None, str | None]


def _tools() -> list[ToolFacts]:
    """(name shown, executable, --version argv, distribution whose version to fall back
    on): the engine's runtime, then each tool whose descriptor names the Python
    distribution this plugin brings it in by (``package``)."""
    listed: dict[str, ToolFacts] = {"bun": ("bun", "bun", ["bun", "--version"], None)}
    for _sensor, spec in shipped_tools():
        if spec.package and spec.tool not in listed:
            exe = spec.version[0] if spec.version else None
            listed[spec.tool] = (spec.tool, exe, spec.version, spec.package)
    return list(listed.values())


def diagnose(workspace: Path, harness: Path | None) -> dict[str, Any]:
    """Every fact doctor shows, as JSON-ready data."""
    if not workspace.is_dir():
        raise InvalidInput(f"--workspace {workspace}: not a directory")
    chosen = harness or upstream_harness(workspace)
    return {
        "aidlc_review": __version__,
        "python": sys.version.split()[0],
        "definitions": {
            "path": str(plugin_root()),
            "from": "checkout" if in_checkout() else "package",
        },
        "harness": describe_harness(chosen),
        "tools": {name: _tool(exe, argv, dist) for name, exe, argv, dist in _tools()},
        "record": _record(workspace),
        "workspace": workspace_readiness(workspace, chosen),
    }


def describe_harness(harness: Path | None) -> dict[str, Any]:
    """Kind (plugin source form, upstream, upstream with the plugin) and versions."""
    layout = HarnessLayout.at(harness)
    if not layout.installed:
        return {"path": str(layout.root), "kind": "source form (this plugin's own harness)"}
    ledger = read_ledger(layout.root)
    engine = sorted(p.name for p in (layout.root / "tools").glob("*.ts"))
    return {
        "path": str(layout.root),
        "kind": "upstream AI-DLC harness" + (" with this plugin" if ledger else ""),
        "aidlc_version": _aidlc_version(layout.root),
        "plugin_version": ledger.plugin_version if ledger else None,
        "engine_tools": len(engine),
        "install_broken": _broken(layout.root) if ledger else [],
    }


def _broken(harness: Path) -> list[str]:
    """What an upgrade took out of the plugin's install (the review plan lists its parts)."""
    plan = read_review_plan(harness)
    if plan is None:
        return [f"{PLAN_PATH}: gone (an install older than the review plan, or removed)"]
    return broken_parts(harness, plan, "code-review") if (harness / LEDGER_PATH).is_file() else []


def _aidlc_version(root: Path) -> str | None:
    return engine_version(root)


def _tool(exe: str | None, argv: list[str] | None, dist: str | None) -> dict[str, Any]:
    path = find_tool(exe) if exe else None
    if exe == "bun" and (chosen := find_bun()):  # $AIDLC_BUN first, as install finds it
        path = Path(chosen)
    if path is not None:
        return {"version": tool_version(path, argv), "path": str(path)}
    if dist is not None:
        try:
            return {"version": metadata.version(dist), "path": None}
        except metadata.PackageNotFoundError:
            pass
    return {"version": "missing", "path": None}


def _record(workspace: Path) -> dict[str, Any]:
    try:
        record = active_intent_record(workspace)
    except InvalidInput as exc:
        return {"path": None, "problem": str(exc)}
    if record is None:
        return {"path": str(workspace / "aidlc-docs"), "kind": "plain workspace"}
    return {"path": str(record), "kind": "upstream active intent"}
