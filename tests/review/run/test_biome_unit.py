"""A project that lints and formats with biome: its descriptor in the linter's and the
formatter's manifests (SARIF, one parser for every SARIF tool), its ``biome-ignore``
comments judged at the base like every suppression. biome is the real one, installed from
the npm registry at a pinned version once per test run."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from tests.review.workspace import UNIT, findings_doc, git, write, write_manifest
from tests.shared_builds import npm_installed

PACKAGE = '{"name": "carts", "version": "1.0.0", "type": "module", "private": true}\n'
BASE = "export function total(prices: number[]): number {\n  return prices.length;\n}\n"
BROKEN = (
    "export function total(prices: number[]): number {\n"
    "  if (prices.length == 0) {\n"
    "    return 0;\n"
    "  }\n"
    '  return eval("prices.length");\n'
    "}\n"
)
SILENCED = BROKEN.replace(
    "  if (prices", "  // biome-ignore lint/suspicious/noDoubleEquals: fine\n  if (prices"
)
UNFORMATTED = "export function total(prices: number[]): number {\n    return prices.length\n}\n"


@pytest.fixture(scope="session")
def node_modules(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return npm_installed(tmp_path_factory, "biome-project", ["@biomejs/biome@2.6.9"], PACKAGE)


@pytest.fixture
def project(tmp_path: Path, node_modules: Path) -> Path:
    root = tmp_path / "carts"
    write(root / "package.json", PACKAGE)
    write(root / "biome.json", '{"linter": {"enabled": true}, "formatter": {"enabled": true}}\n')
    write(root / ".gitignore", "node_modules\n")
    write(root / "src/total.ts", BASE)
    os.symlink(node_modules, root / "node_modules")
    write_manifest(root, ["src/total.ts"])
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "base")
    return root


def open_findings(root: Path) -> set[tuple[str, str, str | None]]:
    assert main(["review", "run", "--workspace", str(root), "--unit", UNIT]) == 1
    return {
        (f["check"], f["rule"], f["location"])
        for f in findings_doc(root)["passes"][-1]["findings"]
        if f["status"] == "open"
    }


def test_biome_lint_findings_are_found_at_their_lines(project: Path) -> None:
    write(project / "src/total.ts", BROKEN)
    found = open_findings(project)
    assert ("linter", "biome:lint/suspicious/noDoubleEquals", "2") in found
    assert ("linter", "biome:lint/security/noGlobalEval", "5") in found


def test_a_biome_ignore_the_change_adds_is_a_finding_itself(project: Path) -> None:
    write(project / "src/total.ts", SILENCED)
    found = open_findings(project)
    assert ("linter", "suppression", "2") in found


def test_biome_format_names_an_unformatted_file(project: Path) -> None:
    write(project / "src/total.ts", UNFORMATTED)
    main(["review", "run", "--workspace", str(project), "--unit", UNIT])  # minor: may be READY
    found = findings_doc(project)["passes"][-1]["findings"]
    assert ("formatter", "biome:format", "src/total.ts") in {
        (f["check"], f["rule"], f["path"]) for f in found
    }
