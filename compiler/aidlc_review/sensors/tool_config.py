"""The tools' configuration the change edits: a finding of the check it would change.

The change never decides how it is judged (DESIGN.md §9). Each tool's descriptor lists where
its judgment is configured (``ToolSpec.config``): whole files (``ruff.toml``), a table of a
TOML file (``[tool.ruff]``), sections of an INI file (``[mypy]``), or the hook definitions
of a Python module (a ``conftest.py``'s ``pytest_*`` functions, ``collect_ignore``). A claimed
file where one of those differs from the unit's base is a major finding of the check that
runs the tool, naming what changed, until a person waives it at the gate. (A changed file
the unit does not claim is unclaimed drift, which blocks on its own.) Waived or not, the
edit does not judge this change: a static check runs under the base's configuration
(``judging_tree``); a test run's harness edit blocks until a person has looked at it.
"""

from __future__ import annotations

import ast
import configparser
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aidlc_review.harness.definitions.sensor import ConfigSpec, ToolSpec
from aidlc_review.sensors.base_text import base_commit, base_texts
from aidlc_review.sensors.context import ABSENT, dig, parse_keyed
from aidlc_review.sensors.globs import compile_glob, filter_matching
from aidlc_review.sensors.results import CheckFinding

if TYPE_CHECKING:
    from aidlc_review.sensors.context import SensorContext

RULE = "config-changed"
UNREADABLE = object()  # a configuration that does not parse differs from every other


def config_changes(ctx: SensorContext, tools: Iterable[ToolSpec]) -> list[CheckFinding]:
    """A finding for each claimed place where a tool's configuration differs from the base."""
    wanted = [(spec.of or tool.tool, spec) for tool in tools for spec in tool.config]
    touched = {path for _, spec in wanted for path in filter_matching(spec.files, ctx.claimed)}
    if not touched:
        return []
    bases = base_texts(ctx.workspace, base_commit(ctx.workspace, ctx.settings), sorted(touched))
    findings = []
    for tool, spec in wanted:
        for path in filter_matching(spec.files, ctx.claimed):
            now = _text(ctx.workspace / path)
            what = _changed(spec, path, now, bases[path])
            if what is not None:
                message = (
                    f"the change edits {tool}'s configuration: {what} in {path}; the change "
                    "never decides how it is judged, so this blocks until a person waives it "
                    "at the gate (or the change leaves it as it was at the base)"
                )
                findings.append(ctx.finding(path, None, message, RULE, RULE, "major"))
    return findings


def _text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _changed(spec: ConfigSpec, path: str, now: str | None, base: str | None) -> str | None:
    """What differs, in words; None when the configuration is as it was at the base."""
    if spec.names:
        before, after = _definitions(base, spec.names), _definitions(now, spec.names)
        names = sorted(n for n in {*before, *after} if before.get(n) != after.get(n))
        return f"{', '.join(names)}" if names else None
    if spec.section is None:
        return None if now == base else ("a new file" if base is None else "the file")
    if path.endswith((".toml", ".json")):
        json_file = path.endswith(".json")
        same = _keyed(base, spec.section, json_file) == _keyed(now, spec.section, json_file)
        return None if same else f"[{spec.section}]"
    before, after = _ini_sections(base, spec.section), _ini_sections(now, spec.section)
    names = sorted(n for n in {*before, *after} if before.get(n) != after.get(n))
    return ", ".join(f"[{name}]" for name in names) if names else None


def _keyed(text: str | None, dotted: str, json_file: bool) -> Any:
    """The table (TOML) or key (JSON) at ``dotted``; None where absent."""
    if text is None:
        return None
    try:
        data = parse_keyed(text, json_file)
    except ValueError:
        return UNREADABLE
    found = dig(data, dotted)
    return None if found is ABSENT else found


def _ini_sections(text: str | None, pattern: str) -> dict[str, Any]:
    if text is None:
        return {}
    parser = configparser.RawConfigParser(strict=False, interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return {pattern: UNREADABLE}
    regex = compile_glob(pattern)
    return {s: dict(parser.items(s)) for s in parser.sections() if regex.match(s)}


def _definitions(text: str | None, names: list[str]) -> dict[str, Any]:
    """The module's top-level definitions whose names match ``names``, each as its AST."""
    if text is None:
        return {}
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return {"(the module does not parse)": UNREADABLE}
    patterns = [compile_glob(name) for name in names]
    found: dict[str, Any] = {}
    for node in tree.body:
        for name in _defined(node):
            if any(p.match(name) for p in patterns):
                found[name] = ast.dump(node)
    return found


def _defined(node: ast.stmt) -> list[str]:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [node.name]
    targets: list[ast.expr] = []
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, ast.AnnAssign | ast.AugAssign):
        targets = [node.target]
    return [t.id for t in targets if isinstance(t, ast.Name)]
