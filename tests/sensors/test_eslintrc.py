"""A project still on eslint's older configuration (``.eslintrc.*`` or ``eslintConfig`` in
``package.json``, eslint 8) is linted with it, as eslint 8 itself reads it; the review's
security lens runs on the same eslint with its flat configuration.

Real eslint 8 from the npm registry, pinned.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.sensors.support import commit_all, located, make_workspace, run_one
from tests.shared_builds import npm_installed

PACKAGE = {"name": "legacy", "version": "1.0.0", "private": True}
RULES = {"root": True, "parserOptions": {"ecmaVersion": 2022}, "rules": {"no-console": "error"}}
SOURCE = "const ok = 1;\nconsole.log(ok);\n"


@pytest.fixture(scope="module")
def eslint8(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return npm_installed(tmp_path_factory, "npm-eslint8", ["eslint@8.57.1"], json.dumps(PACKAGE))


def _workspace(root: Path, files: dict[str, str], modules: Path) -> Path:
    make_workspace(root, {".gitignore": "node_modules\n", "src/app.js": SOURCE, **files})
    os.symlink(modules, root / "node_modules")
    return commit_all(root)


def test_eslint_config_in_package_json_is_the_projects_linter_configuration(
    tmp_path: Path, eslint8: Path
) -> None:
    package = json.dumps({**PACKAGE, "eslintConfig": RULES})
    ws = _workspace(tmp_path / "ws", {"package.json": package}, eslint8)

    result = run_one(ws, ["src/app.js"], "linter")

    assert located(result) == [("src/app.js", 2, "eslint:no-console", "major")]


def test_an_eslintrc_file_is_the_projects_linter_configuration(
    tmp_path: Path, eslint8: Path
) -> None:
    files = {"package.json": json.dumps(PACKAGE), ".eslintrc.json": json.dumps(RULES)}
    ws = _workspace(tmp_path / "ws", files, eslint8)

    result = run_one(ws, ["src/app.js"], "linter")

    assert located(result) == [("src/app.js", 2, "eslint:no-console", "major")]


def test_the_security_lens_runs_on_eslint_8_with_its_own_flat_configuration(
    tmp_path: Path, eslint8: Path
) -> None:
    files = {"package.json": json.dumps(PACKAGE), ".eslintrc.json": json.dumps(RULES)}
    ws = _workspace(tmp_path / "ws", files, eslint8)
    (ws / "src/app.js").write_text(SOURCE + "export const same = (a) => a == 1 && eval(a);\n")

    result = run_one(ws, ["src/app.js"], "security")

    assert located(result) == [
        ("src/app.js", 2, "eslint:no-console", "minor"),  # the lens's own level
        ("src/app.js", 3, "eslint:eqeqeq", "major"),
        ("src/app.js", 3, "eslint:no-eval", "major"),
    ]
