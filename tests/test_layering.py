"""Layering is checked, not hoped for (STYLE.md §11).

Reads every module's imports (including ones inside functions) with ``ast``
and asserts who may import whom.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "compiler" / "aidlc_review"


def _modules() -> dict[str, set[str]]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        name = ".".join(rel.parts).removesuffix(".__init__")
        imports = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                imports.add(node.module)
            elif isinstance(node, ast.Import):
                imports.update(alias.name for alias in node.names)
        found[name] = {
            i for i in imports if i == "aidlc_review" or i.startswith("aidlc_review.")
        } | ({i for i in imports if i in ("argparse", "networkx")})
    return found


MODULES = _modules()


def _importers_of(prefix: str) -> set[str]:
    return {
        m
        for m, imps in MODULES.items()
        if any(i == prefix or i.startswith(prefix + ".") for i in imps)
    }


def _in(module: str, package: str) -> bool:
    return module == f"aidlc_review.{package}" or module.startswith(f"aidlc_review.{package}.")


def test_definitions_import_nothing_of_ours_but_definitions():
    for module, imports in MODULES.items():
        if _in(module, "harness.definitions"):
            ours = {i for i in imports if i.startswith("aidlc_review")}
            assert all(i.startswith("aidlc_review.harness.definitions") for i in ours), (
                module,
                ours,
            )


def test_only_the_cli_knows_about_argv():
    assert {m for m in _importers_of("argparse")} <= {m for m in MODULES if _in(m, "cli")}
    assert {m for m in _importers_of("aidlc_review.cli")} <= {
        m for m in MODULES if _in(m, "cli")
    } | {"aidlc_review.__main__"}


def test_networkx_stays_behind_the_graph_module():
    assert _importers_of("networkx") == {"aidlc_review.compile.graph"}


def test_sensors_do_not_import_the_graph_the_review_or_the_pipeline():
    for module in (m for m in MODULES if _in(m, "sensors")):
        for banned in (
            "compile.graph",
            "compile.build",
            "compile.validate",
            "bolt",
            "cli",
            "review",
        ):
            assert not any(_in(i, banned) for i in MODULES[module]), (module, banned)


def test_the_runtime_does_not_import_the_pipeline():
    for module in (m for m in MODULES if _in(m, "review")):
        assert not any(_in(i, "bolt") for i in MODULES[module]), module


def test_validating_a_harness_does_not_import_networkx():
    """networkx (about 0.4 s of CPU to import) is for numbering and listing cycles; a
    review, which only loads and validates the harness, never needs it."""
    script = (
        "import sys\n"
        "from aidlc_review.compile.build import load_valid\n"
        "from aidlc_review.harness.layout import HarnessLayout\n"
        "harness, graph, _ = load_valid(HarnessLayout.at(None))\n"
        "assert 'code-review' in graph\n"
        "print('networkx' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (0, "False\n"), done.stderr


def test_checking_a_receipt_imports_no_sensor_agent_or_engine():
    """The verify hook runs on every commit and CI's verify on every push: loading the
    verification must not pay for detect-secrets, coverage.py, the agents or the engine; the
    sensors are imported only when a fresh receipt gets to having them run again."""
    script = (
        "import sys\n"
        "from aidlc_review.hooks.stale import stale_units\n"
        "from aidlc_review.review.record.verify import verify_review\n"
        "heavy = ('detect_secrets', 'coverage', 'jsonschema', 'networkx', 'aidlc_review.sensors',\n"
        "         'aidlc_review.review.run.engine', 'aidlc_review.review.agents.adapters')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy or m in heavy))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (0, "[]\n"), done.stderr or done.stdout
