"""A TypeScript unit is reviewed with the project's own tools: eslint, tsc and vitest.

The project is a real npm project (the tools installed from the npm registry at pinned
versions, once per test run) with its settings in ``.aidlc-review.toml``; the unit's change
leaves an eval, a type error and a failing test, and skips another. Each is a finding, the
verdict is NOT-READY; fixed, it is READY. The tools are the descriptors' (sensors/*.md):
nothing in the runtime names them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from tests.review.workspace import UNIT, findings_doc, git, write, write_manifest
from tests.sensors.typescript_project import PACKAGE_JSON, installed

FILES = {
    "package.json": PACKAGE_JSON,
    "tsconfig.json": json.dumps(
        {
            "compilerOptions": {
                "strict": True,
                "noEmit": True,
                "target": "ES2022",
                "module": "ESNext",
                "moduleResolution": "Bundler",
                "skipLibCheck": True,
            },
            "include": ["src", "tests"],
        }
    ),
    "eslint.config.js": (
        'import tseslint from "typescript-eslint";\n'
        "export default tseslint.config(...tseslint.configs.recommended, "
        '{ rules: { "no-eval": "error" } });\n'
    ),
    ".aidlc-review.toml": 'test-command = "npx vitest run tests"\n',
    ".prettierrc": '{"semi": true}\n',
    ".gitignore": "node_modules\n",
    "src/add.ts": "export const version = 1;\n",
    "tests/add.test.ts": 'import { expect, test } from "vitest";\n\ntest("runs", () => {\n'
    "  expect(1).toBe(1);\n});\n",
}
CLAIMS = ["src/add.ts", "tests/add.test.ts"]
BROKEN = (
    "export function add(a: number, b: number): number {\n"
    "  const label: string =    42;\n"
    '  eval("1");\n'
    "  return a - b + label.length * 0;\n"
    "}\n"
)
FIXED = "export function add(a: number, b: number): number {\n  return a + b;\n}\n"
TESTS = (
    'import { expect, test } from "vitest";\nimport { add } from "../src/add";\n\n'
    'test("adds", () => {\n  expect(add(1, 2)).toBe(3);\n});\n\n'
    'test.skip("adds negatives", () => {\n  expect(add(-1, -2)).toBe(-3);\n});\n'
)


@pytest.fixture(scope="session")
def node_modules(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project's npm packages, installed once per test run from the npm registry."""
    return installed(tmp_path_factory)


@pytest.fixture
def project(tmp_path: Path, node_modules: Path) -> Path:
    """The project at its base (committed), the unit's change on top."""
    root = tmp_path / "orders"
    for name, text in FILES.items():
        write(root / name, text)
    os.symlink(node_modules, root / "node_modules")
    write_manifest(root, CLAIMS)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "base")
    write(root / "src/add.ts", BROKEN)
    write(root / "tests/add.test.ts", TESTS)
    return root


def review(root: Path) -> int:
    return main(["review", "run", "--workspace", str(root), "--unit", UNIT])


def test_a_typescript_unit_with_a_type_error_a_failing_test_and_an_eval_is_not_ready(
    project: Path,
) -> None:
    assert review(project) == 1

    found = {(f["check"], f["rule"]) for f in findings_doc(project)["passes"][-1]["findings"]}
    assert ("type-check", "tsc:TS2322") in found
    assert ("linter", "eslint:no-eval") in found
    assert ("coverage", "tests-failed") in found  # adds: expected -1 to be 3
    assert ("coverage", "suppression") in found  # the test.skip the change added
    assert ("formatter", "prettier") in found  # prettier --list-different names src/add.ts


def test_the_repaired_typescript_unit_is_ready(project: Path) -> None:
    write(project / "src/add.ts", FIXED)
    write(project / "tests/add.test.ts", TESTS.replace("test.skip(", "test("))

    assert review(project) == 0
    assert main(["review", "verify", "--workspace", str(project), "--unit", UNIT, "--ready"]) == 0


def test_a_typescript_project_without_tsconfig_says_no_type_check_ran(project: Path) -> None:
    (project / "tsconfig.json").unlink()
    git(project, "add", "-A")
    review(project)
    checks = {c["name"]: c for c in findings_doc(project)["passes"][-1]["checks"]}
    assert checks["type-check"]["status"] == "skipped"
    assert checks["type-check"]["reason"].startswith(
        "no type-check ran for 2 claimed file(s): the workspace configures none of its tools"
    )


def test_a_severity_override_reads_the_same_for_a_typescript_rule(project: Path) -> None:
    """``eslint:eqeqeq`` is tuned like ``S608``: the workspace's table, at the base."""
    (project / ".aidlc-review.toml").write_text(
        FILES[".aidlc-review.toml"] + '\n[severity.rules]\n"eslint:eqeqeq" = "off"\n'
    )
    git(project, "add", ".aidlc-review.toml")
    git(project, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "t")
    with (project / "src/add.ts").open("a") as source:
        source.write("export const same = (a: number, b: number): boolean => a == b;\n")

    review(project)

    rules = {f["rule"] for f in findings_doc(project)["passes"][-1]["findings"]}
    assert "eslint:eqeqeq" not in rules and "tsc:TS2322" in rules


def test_eval_cannot_be_tuned_below_its_floor_for_typescript_either(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``eslint:no-eval`` has ``S307``'s floor: ``off`` is refused, naming the file."""
    (project / ".aidlc-review.toml").write_text(
        FILES[".aidlc-review.toml"] + '\n[severity.rules]\n"eslint:no-eval" = "off"\n'
    )
    git(project, "add", ".aidlc-review.toml")
    git(project, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "t")

    assert review(project) == 2
    said = capsys.readouterr().err
    assert ".aidlc-review.toml" in said and "below the floor" in said


def test_eslint_and_tsc_judge_with_the_bases_configuration_not_the_changes(project: Path) -> None:
    """The change turns no-eval off and tsc's strictness down in files it claims: both
    tools still judge with the base's, and each edit is a finding a person must waive."""
    write(project / "eslint.config.js", FILES["eslint.config.js"].replace('"error"', '"off"'))
    loose = json.loads(FILES["tsconfig.json"])
    loose["compilerOptions"].update(strict=False, noImplicitAny=False, skipLibCheck=True)
    write(project / "tsconfig.json", json.dumps(loose))
    write(project / "src/add.ts", BROKEN.replace("const label: string =    42", "const label = 42"))
    write(project / "src/loose.ts", "export function double(x) {\n  return x * 2;\n}\n")
    write_manifest(project, [*CLAIMS, "src/loose.ts", "eslint.config.js", "tsconfig.json"])

    assert review(project) == 1

    found = {
        (f["check"], f["path"], f["rule"]) for f in findings_doc(project)["passes"][-1]["findings"]
    }
    assert ("linter", "src/add.ts", "eslint:no-eval") in found
    assert ("type-check", "src/loose.ts", "tsc:TS7006") in found  # implicit any, under strict
    assert ("linter", "eslint.config.js", "config-changed") in found
    assert ("type-check", "tsconfig.json", "config-changed") in found


def test_an_unused_variable_tsc_and_eslint_both_report_is_one_finding(project: Path) -> None:
    strict = json.loads(FILES["tsconfig.json"])
    strict["compilerOptions"]["noUnusedLocals"] = True
    write(project / "tsconfig.json", json.dumps(strict))
    git(project, "add", "tsconfig.json")
    git(project, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "s")
    write(project / "src/add.ts", FIXED.replace("{\n", "{\n  const unused = a * 2;\n", 1))
    write(project / "tests/add.test.ts", TESTS.replace("test.skip(", "test("))

    assert review(project) == 1

    open_ = [f for f in findings_doc(project)["passes"][-1]["findings"] if f["status"] == "open"]
    [unused] = [f for f in open_ if f["path"] == "src/add.ts"]
    assert unused["checks"] == ["linter", "type-check"]
    assert "tsc:TS6133" in unused["evidence"]
    assert "eslint:@typescript-eslint/no-unused-vars" in unused["evidence"]
