"""prettier names only the files it would change (``--list-different``); the review places
each at the first line it would change, by asking prettier for the file as it would format
it (never written). Real prettier from the npm registry, pinned."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.sensors.support import commit_all, located, make_workspace, run_one, tree_bytes
from tests.sensors.typescript_project import PACKAGE_JSON, installed

FORMATTED = "export const one = 1;\n\nexport function two(): number {\n  return 2;\n}\n"
# line 4 is what prettier would change
SEEDED = "export const one = 1;\n\nexport function two(): number {\n  return    2;\n}\n"


@pytest.fixture(scope="module")
def node_modules(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return installed(tmp_path_factory)


@pytest.fixture
def ws(tmp_path: Path, node_modules: Path) -> Path:
    files = {
        "package.json": PACKAGE_JSON,
        ".prettierrc": '{"semi": true}\n',
        ".gitignore": "node_modules\n",
        "src/a.ts": SEEDED,
        "src/b.ts": FORMATTED,
    }
    root = make_workspace(tmp_path / "ws", files)
    os.symlink(node_modules, root / "node_modules")
    return commit_all(root)


def test_an_unformatted_typescript_file_is_found_at_the_first_line_prettier_would_change(
    ws: Path,
) -> None:
    before = tree_bytes(ws / "src")

    result = run_one(ws, ["src/a.ts", "src/b.ts"], "formatter")

    assert located(result) == [("src/a.ts", 4, "prettier", "minor")]
    assert tree_bytes(ws / "src") == before  # check-only: nothing rewritten


def test_prettier_failing_to_load_its_configuration_is_an_error_never_a_pass(ws: Path) -> None:
    """prettier exits 1 then, as for files it would change, and lists none."""
    (ws / ".prettierrc").write_text('{"semi": true, "plugins": ["not-installed"]}\n')

    result = run_one(ws, ["src/a.ts"], "formatter")

    assert result.status == "error"
    assert "prettier exited 1 without a report" in (result.reason or "")
