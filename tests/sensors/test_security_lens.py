"""The security lens on JavaScript and TypeScript: the project's installed eslint with the
review's own rules (``sensors/configs/eslint-lens.config.mjs``), whatever the project's eslint
configuration enables, as ruff's bandit rules are asked of Python whatever its selects.

Real eslint and typescript-eslint from the npm registry, at pinned versions.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.sensors.support import commit_all, located, make_workspace, run_one
from tests.sensors.typescript_project import PACKAGE_JSON, installed

# the project's eslint asks none of the lens's rules: eval, == and empty catches allowed
LENIENT = (
    'import tseslint from "typescript-eslint";\n'
    "export default tseslint.config(...tseslint.configs.recommended, { rules: {\n"
    '  "no-eval": "off", "no-new-func": "off", "no-implied-eval": "off", eqeqeq: "off",\n'
    '  "no-empty": ["error", { allowEmptyCatch: true }],\n'
    '  "@typescript-eslint/no-explicit-any": "off" } });\n'
)
SOURCE = (
    "export function parse(text: string, kind: number): any {\n"  # 1: `any` leaks out
    "  try {\n"
    "    JSON.parse(text);\n"
    "  } catch {}\n"  # 4: an empty catch
    "  if (kind == 2) console.log(text);\n"  # 5: == and console
    '  setTimeout("run()", 10);\n'  # 6: a string run later
    "  const make = new Function(text);\n"  # 7
    "  return eval(text) ?? make;\n"  # 8
    "}\n"
)
PLAIN_JS = 'const a = require("./a");\nif (a == null || a == 1) { a.run(eval("1")); }\n'


@pytest.fixture(scope="module")
def node_modules(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return installed(tmp_path_factory)


def _workspace(root: Path, files: dict[str, str], modules: Path) -> Path:
    make_workspace(root, {"package.json": PACKAGE_JSON, ".gitignore": "node_modules\n", **files})
    os.symlink(modules, root / "node_modules")
    return commit_all(root)


def test_eval_eqeq_an_empty_catch_and_console_are_found_whatever_the_projects_eslint_enables(
    tmp_path: Path, node_modules: Path
) -> None:
    ws = _workspace(
        tmp_path / "ws", {"eslint.config.js": LENIENT, "src/a.ts": SOURCE}, node_modules
    )

    assert run_one(ws, ["src/a.ts"], "linter").findings == ()  # its own config sees none
    result = run_one(ws, ["src/a.ts"], "security")

    assert result.status == "failed"
    assert located(result) == [
        ("src/a.ts", 1, "eslint:@typescript-eslint/no-explicit-any", "minor"),
        ("src/a.ts", 4, "eslint:no-empty", "minor"),
        ("src/a.ts", 5, "eslint:eqeqeq", "major"),
        ("src/a.ts", 5, "eslint:no-console", "minor"),
        ("src/a.ts", 6, "eslint:no-implied-eval", "major"),
        ("src/a.ts", 7, "eslint:no-new-func", "major"),
        ("src/a.ts", 8, "eslint:no-eval", "major"),
    ]
    assert {f.category for f in result.findings} == {"security"}
    assert result.findings[-1].message.startswith("no-eval ")  # eslint's rule and words


def test_plain_javascript_is_judged_without_any_eslint_configuration_of_the_project(
    tmp_path: Path, node_modules: Path
) -> None:
    ws = _workspace(tmp_path / "ws", {"lib/b.cjs": PLAIN_JS}, node_modules)

    result = run_one(ws, ["lib/b.cjs"], "security")

    # `== null` tests null and undefined on purpose; `== 1` does not
    assert located(result) == [
        ("lib/b.cjs", 2, "eslint:eqeqeq", "major"),
        ("lib/b.cjs", 2, "eslint:no-eval", "major"),
    ]


def test_an_eslint_disable_the_change_adds_does_not_hide_its_eval(
    tmp_path: Path, node_modules: Path
) -> None:
    base = "export const run = (text: string): string => text;\n"
    ws = _workspace(tmp_path / "ws", {"src/a.ts": base}, node_modules)
    (ws / "src/a.ts").write_text(
        "// eslint-disable-next-line no-eval\n"
        "export const run = (text: string): unknown => eval(text);\n"
    )

    result = run_one(ws, ["src/a.ts"], "security")

    assert ("src/a.ts", 2, "eslint:no-eval", "major") in located(result)
    assert result.status == "failed"


def test_a_project_config_the_change_adds_does_not_switch_the_lens_off(
    tmp_path: Path, node_modules: Path
) -> None:
    ws = _workspace(tmp_path / "ws", {"src/a.ts": "export const x = 1;\n"}, node_modules)
    (ws / "eslint.config.js").write_text(
        LENIENT.replace("rules: {", "rules: { 'no-console': 'off',")
    )
    (ws / "src/a.ts").write_text("export const x = (a: number): unknown => eval(String(a));\n")

    result = run_one(ws, ["src/a.ts"], "security")

    assert ("src/a.ts", 1, "eslint:no-eval", "major") in located(result)


def _without_typescript_parser(root: Path, modules: Path) -> None:
    folder = root / "node_modules"
    folder.unlink()
    folder.mkdir()
    for entry in modules.iterdir():
        if entry.name not in ("typescript-eslint", "@typescript-eslint"):
            (folder / entry.name).symlink_to(entry)


def test_typescript_files_without_a_typescript_parser_are_said_unjudged_never_passed(
    tmp_path: Path, node_modules: Path
) -> None:
    ws = _workspace(tmp_path / "ws", {"src/a.ts": SOURCE, "lib/b.cjs": PLAIN_JS}, node_modules)
    _without_typescript_parser(ws, node_modules)

    result = run_one(ws, ["lib/b.cjs", "src/a.ts"], "security")

    assert {f.path for f in result.findings} == {"lib/b.cjs"}  # JavaScript is still judged
    assert result.details["untaken"] == ["src/a.ts"]


TSCONFIG = (
    '{"compilerOptions": {"strict": true, "target": "ES2022", "module": "ESNext"},\n'
    ' "include": ["src"]}\n'
)
ASYNC = (
    "export async function save(): Promise<number> {\n"
    "  return 1;\n"
    "}\n"
    "export function submit(): void {\n"
    "  save();\n"  # 5: a promise nothing awaits
    "}\n"
)


def test_a_promise_nothing_awaits_is_found_in_a_file_the_projects_tsconfig_compiles(
    tmp_path: Path, node_modules: Path
) -> None:
    """Type-aware, so only where the tsconfig's program holds the file; one outside it
    (scripts/) is still judged by the rest of the lens, and never fails to parse."""
    files = {"tsconfig.json": TSCONFIG, "src/a.ts": ASYNC, "scripts/b.ts": ASYNC + "eval('1');\n"}
    ws = _workspace(tmp_path / "ws", files, node_modules)

    result = run_one(ws, ["scripts/b.ts", "src/a.ts"], "security")

    assert located(result) == [
        ("scripts/b.ts", 7, "eslint:no-eval", "major"),
        ("src/a.ts", 5, "eslint:@typescript-eslint/no-floating-promises", "minor"),
    ]
