"""One door to upstream's engine: its names are spelled in ``aidlc_review.upstream`` only.

A grep over the package's code (docstrings and comments aside: they may say what the engine
does): the engine's tool file names, its state and record paths, and a bun argv built by
hand occur only under ``upstream/`` and the modules that read the engine's dialect
(``harness/engine.py``, ``harness/definitions/dialect.py``); its version constant
(``AIDLC_VERSION``, read by ``upstream/version.py``) only under ``upstream/``."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "compiler" / "aidlc_review"
THE_DOOR = ("upstream/",)
DIALECT_READERS = ("harness/engine.py", "harness/definitions/dialect.py")
ALLOWED = THE_DOOR + DIALECT_READERS
VERSION_CONSTANT = "AIDLC_VERSION"  # the dialect readers ask upstream/version.py for it
ENGINE_NAMES = re.compile(
    r"aidlc(?!-review)(?:-[a-z-]+)?\.ts"  # its tools, the dispatcher (not the plugin's own)
    r"|AIDLC_VERSION"
    r"|aidlc-state\.md"  # an intent's state
    r"|aidlc/(?:spaces|active-space)"  # its record tree and cursor
    r"|\.aidlc/worktrees"  # its Bolt worktrees
    r"|\.claude/tools"  # where its tools sit
)


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the string constants that are docstrings."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def _bun_argv(node: ast.AST) -> bool:
    """A list literal that runs something with bun: ``["bun", <anything but a bun flag>]``."""
    if not isinstance(node, ast.List) or len(node.elts) < 2:
        return False
    first, second = node.elts[0], node.elts[1]
    if not (isinstance(first, ast.Constant) and first.value == "bun"):
        return False
    return not (isinstance(second, ast.Constant) and str(second.value).startswith("--"))


def engine_names_in(source: str) -> list[tuple[int, str]]:
    """(line, what) for each engine name a module's code spells out itself."""
    tree = ast.parse(source)
    docs = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if _bun_argv(node):
            found.append((getattr(node, "lineno", 0), "a bun argv built by hand"))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) not in docs and (hit := ENGINE_NAMES.search(node.value)):
                found.append((node.lineno, hit.group(0)))
    return sorted(found)


def _allowed(relative: str, what: str) -> bool:
    return relative.startswith(THE_DOOR if what == VERSION_CONSTANT else ALLOWED)


def _outside_the_door() -> list[str]:
    strays = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if relative.startswith(THE_DOOR):
            continue
        for line, what in engine_names_in(path.read_text(encoding="utf-8")):
            if not _allowed(relative, what):
                strays.append(f"{relative}:{line}: {what}")
    return strays


def test_engine_names_occur_only_behind_the_door() -> None:
    assert _outside_the_door() == []


def test_the_version_constant_is_read_behind_the_door_only_not_by_the_dialect_readers() -> None:
    assert not _allowed("harness/engine.py", VERSION_CONSTANT)
    assert _allowed("harness/engine.py", "aidlc-stage-schema.ts")
    assert _allowed("upstream/version.py", VERSION_CONSTANT)


def test_the_grep_finds_an_engine_tool_named_in_code_but_not_in_a_docstring() -> None:
    source = '"""Runs ``aidlc-log.ts``."""\nTOOL = "aidlc-log.ts"\n'
    assert engine_names_in(source) == [(2, "aidlc-log.ts")]


def test_the_grep_finds_record_paths_and_the_version_constant() -> None:
    source = 'A = "aidlc/spaces"\nB = f"{x}/aidlc-state.md"\nC = "AIDLC_VERSION"\n'
    assert [what for _, what in engine_names_in(source)] == [
        "aidlc/spaces",
        "aidlc-state.md",
        "AIDLC_VERSION",
    ]


def test_the_grep_finds_a_bun_argv_built_by_hand_but_not_a_version_probe() -> None:
    source = 'A = ["bun", tool, "merge"]\nB = ["bun", "--version"]\n'
    assert engine_names_in(source) == [(1, "a bun argv built by hand")]


def test_the_plugins_own_names_are_not_the_engines() -> None:
    source = (
        'A = "aidlc-review"\nB = "aidlc-review-land.lock"\nC = "aidlc-docs"\n'
        'D = "hooks/aidlc-review-engine-gate.ts"\n'
    )
    assert engine_names_in(source) == []
