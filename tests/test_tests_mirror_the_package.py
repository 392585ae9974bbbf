"""The tests mirror the package: each folder of ``aidlc_review/review/`` has a folder under
``tests/review/`` of the same name, and every module in it is imported by a test there, so
the spec of a module is found beside the specs of its neighbours."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REVIEW = ROOT / "compiler" / "aidlc_review" / "review"
TESTS = ROOT / "tests" / "review"


def _folders() -> list[Path]:
    return sorted(p for p in REVIEW.iterdir() if (p / "__init__.py").is_file())


def _imported(folder: Path) -> set[str]:
    """Every ``aidlc_review`` module a test file in ``folder`` imports (a name imported from
    a package counts for the module of that name)."""
    found: set[str] = set()
    for test in folder.glob("test_*.py"):
        for node in ast.walk(ast.parse(test.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                found.add(node.module)
                found |= {f"{node.module}.{alias.name}" for alias in node.names}
            elif isinstance(node, ast.Import):
                found |= {alias.name for alias in node.names}
    return found


def test_every_review_folder_has_its_test_folder() -> None:
    missing = [p.name for p in _folders() if not (TESTS / p.name / "__init__.py").is_file()]
    assert missing == []


def test_no_test_file_sits_at_the_top_of_tests_review() -> None:
    assert sorted(p.name for p in TESTS.glob("test_*.py")) == []


def test_every_review_module_is_imported_by_a_test_in_its_mirror_folder() -> None:
    unpinned = []
    for folder in _folders():
        imported = _imported(TESTS / folder.name)
        for module in sorted(folder.glob("*.py")):
            if module.name == "__init__.py":
                continue
            name = f"aidlc_review.review.{folder.name}.{module.stem}"
            if name not in imported:
                unpinned.append(f"{folder.name}/{module.name}")
    assert unpinned == []
