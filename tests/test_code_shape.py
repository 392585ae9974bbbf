"""The code stays readable in small pieces (STYLE.md): no function longer than 60 lines."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "compiler" / "aidlc_review"
LIMIT = 60


def _long_functions() -> list[str]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > LIMIT:
                    found.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name}: {length}")
    return found


def test_no_function_is_longer_than_sixty_lines():
    assert _long_functions() == []
