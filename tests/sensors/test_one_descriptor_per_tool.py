"""One descriptor per tool: a tool's name appears in the runtime only where it is allowed.

The sensor manifests (``sensors/aidlc-*.md``) describe each tool; the parser module of a
format reads its report. Everywhere else the runtime asks the descriptors
(``sensors.descriptors``) and names no tool. This test reads every module of
``compiler/aidlc_review`` token by token (names and string literals; comments and
docstrings are prose and do not count) and looks for each tool as a whole word.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

from aidlc_review.sensors.descriptors import (
    cache_names,
    defect_table,
    root_config_names,
    shipped_tools,
    tool_of,
)

PACKAGE = Path(__file__).resolve().parents[2] / "compiler" / "aidlc_review"
# the tools the manifests describe, and the ones a test command or the dependency audit
# runs them by (``coverage`` and ``node`` are words of their own and are not looked for)
RUN_BY = ("pytest", "bandit", "npm")
LOOKED_FOR = sorted(
    {spec.tool for _sensor, spec in shipped_tools()} - {"coverage", "node"} | set(RUN_BY)
)

# module (under compiler/aidlc_review) -> the tools it may name, and why
ALLOWED: dict[str, set[str]] = {
    # the parser per format: eslint's JSON, tsc's text, jest's JSON, ruff's JSON are named
    # by their tool
    "sensors/formats.py": {"eslint", "jest", "ruff", "tsc"},
    # the secret scan runs the detector in-process, as a library (its plugins, filters and
    # baseline format), not as a command whose report a parser could read
    "sensors/secret_scan.py": {"detect-secrets"},
    # the secret scan of text (names, agent answers): its memo of clean names is keyed by
    # the detector's distribution version, read without importing it
    "sensors/redact.py": {"detect-secrets"},
    # the dependency audit of package.json and its lockfiles (npm's own file formats)
    "sensors/dependencies.py": {"npm"},
    "sensors/dependency_changes.py": {"npm"},
    "sensors/dependency_files.py": {"npm"},
    "sensors/npm_dependencies.py": {"npm"},
    "sensors/npm_ranges.py": {"npm"},
}


def _docstring_lines(tree: ast.Module) -> set[int]:
    kinds = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    lines: set[int] = set()
    for node in ast.walk(tree):
        body = node.body if isinstance(node, kinds) else []
        first = body[0] if body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
            if isinstance(first.value.value, str):
                lines.add(first.lineno)
    return lines


def tools_named(source: str) -> set[str]:
    """The tools a module names in its code: identifiers (``_ruff_page``) and string
    literals (``".ruff_cache"``), never comments or docstrings."""
    prose = _docstring_lines(ast.parse(source))
    found: set[str] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.NAME:
            text = token.string.replace("_", " ").lower()
        elif token.type == tokenize.STRING and token.start[0] not in prose:
            text = token.string
        else:
            continue
        found |= {t for t in LOOKED_FOR if re.search(rf"(?<![A-Za-z0-9]){t}(?![A-Za-z0-9])", text)}
    return found


def _named_everywhere() -> dict[str, set[str]]:
    named = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        tools = tools_named(path.read_text(encoding="utf-8"))
        if tools:
            named[path.relative_to(PACKAGE).as_posix()] = tools
    return named


def test_a_tool_is_named_only_in_its_descriptor_and_the_modules_allowed_to() -> None:
    print("allowed to name a tool:", *(f"{m}: {sorted(t)}" for m, t in ALLOWED.items()), sep="\n")
    outside = {
        module: sorted(tools - ALLOWED.get(module, set()))
        for module, tools in _named_everywhere().items()
        if tools - ALLOWED.get(module, set())
    }
    assert outside == {}


def test_the_allowlist_names_no_module_that_no_longer_names_the_tool() -> None:
    named = _named_everywhere()
    stale = {
        m: sorted(t - named.get(m, set())) for m, t in ALLOWED.items() if t - named.get(m, set())
    }
    assert stale == {}


@pytest.mark.parametrize(
    "source",
    [
        'RULES = "https://docs.astral.sh/ruff/rules/"\n',
        "def _ruff_page():\n    pass\n",
        'CACHES = (".mypy_cache",)\n',
    ],
)
def test_a_tool_in_a_name_or_a_string_is_seen(source: str) -> None:
    assert tools_named(source) & {"ruff", "mypy"}


def test_a_tool_in_a_comment_or_a_docstring_is_prose() -> None:
    source = '"""Runs ruff."""\n\n\ndef f():\n    """and mypy"""\n    return 1  # ruff says\n'
    assert tools_named(source) == set()


def test_a_tool_inside_a_longer_word_is_not_the_tool() -> None:
    assert tools_named('x = "rufflesome blackboard tscore"\n') == set()


def test_the_descriptors_carry_what_the_runtime_used_to_hard_code() -> None:
    table = defect_table()
    assert table["F821"] == table["name-defined"] == table["tsc:TS2304"] == "undefined-name"
    assert table["tsc:TS6133"] == table["eslint:no-unused-vars"] == "unused-name"
    assert table["S105"] == "hardcoded-secret"
    linter_eslint = tool_of("linter", "eslint:no-undef")
    assert linter_eslint is not None and linter_eslint.tool == "eslint"
    linter_own = tool_of("linter", "F401")
    assert linter_own is not None and linter_own.format is None
    assert {".ruff_cache", ".mypy_cache", ".pytest_cache"} <= set(cache_names())
    assert {"ruff.toml", ".ruff.toml", "mypy.ini", "pytest.ini", "pyproject.toml"} <= set(
        root_config_names()
    )
