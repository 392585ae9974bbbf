"""The built wheel works wherever it is installed, not only from this checkout.

A wheel from ``python -m build`` goes into a fresh venv outside the repository; every command
below runs that venv's ``aidlc-review`` with only that venv and the system on PATH, from a
directory that is not the checkout.
"""

from __future__ import annotations

import json
import shutil
import zipfile

from aidlc_review import __version__
from aidlc_review.harness.layout import PROJECT_ROOT
from tests.packaging.wheel import SHARED, Installed

DEFINITIONS = ("stages", "agents", "knowledge", "sensors", "scopes")


def test_the_wheel_carries_the_definitions_and_templates(wheel_venv: Installed):
    names = set(zipfile.ZipFile(wheel_venv.wheel).namelist())
    for folder in DEFINITIONS:
        for path in sorted((PROJECT_ROOT / folder).rglob("*.md")):
            shipped = f"aidlc_review/_plugin/{path.relative_to(PROJECT_ROOT).as_posix()}"
            assert shipped in names
    assert "aidlc_review/templates/code-review.md.j2" in names
    assert "aidlc_review/py.typed" in names  # PEP 561: importers type-check against it
    assert "aidlc_review/schemas/code-review-findings.schema.json" in names


def test_version_and_doctor_name_the_packaged_definitions(wheel_venv: Installed, tmp_path):
    assert wheel_venv.run("--version", cwd=tmp_path).stdout == f"aidlc-review {__version__}\n"
    done = wheel_venv.run("doctor", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    facts = json.loads(done.stdout)
    assert facts["definitions"]["from"] == "package"
    assert facts["definitions"]["path"].startswith(str(wheel_venv.venv))
    assert facts["harness"]["kind"] == "source form (this plugin's own harness)"
    assert facts["tools"]["detect-secrets"]["version"] != "missing"
    assert facts["tools"]["ruff"]["version"] != "missing"  # a runtime dependency (security lens)
    assert facts["tools"]["mypy"]["version"] == "missing"  # not in the fresh venv, not on PATH


def test_plan_from_anywhere(wheel_venv: Installed, tmp_path):
    done = wheel_venv.run("plan", "--scope", "feature", "--mode", "gated", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "code-generation" in done.stdout
    assert "completion/unit suppressed -> code-review" in done.stdout
    assert "3.5  code-review            aidlc-developer-agent  2       blocking  review/unit" in (
        done.stdout
    )
    shown = wheel_venv.run("scope", "show", "feature", cwd=tmp_path)
    assert shown.returncode == 0 and "code-review" in shown.stdout


def test_install_into_an_upstream_harness(wheel_venv: Installed, tmp_path):
    harness = tmp_path / ".claude"
    shutil.copytree(SHARED / "aidlc-harness", harness)
    done = wheel_venv.run("install", "--harness", str(harness), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (harness / "aidlc-common/stages/construction/code-review.md").is_file()
    assert (harness / "knowledge/aidlc-code-reviewer-agent/checklist.md").is_file()
    ledger = json.loads((harness / "tools/data/plugin-aidlc-review.json").read_text())
    assert ledger["plugin_version"] == __version__
    again = wheel_venv.run("install", "--harness", str(harness), "--dry-run", cwd=tmp_path)
    assert again.returncode == 0 and again.stdout == ""  # idempotent: no diff
    plan = wheel_venv.run(
        "plan", "--scope", "feature", "--mode", "gated", "--harness", str(harness), cwd=tmp_path
    )
    assert plan.returncode == 0 and "code-review" in plan.stdout


def test_review_run_on_the_example_workspace(wheel_venv: Installed, tmp_path):
    workspace = tmp_path / "inventory-service"
    shutil.copytree(PROJECT_ROOT / "examples" / "inventory-service", workspace)
    done = wheel_venv.run(
        "review",
        "run",
        "--workspace",
        str(workspace),
        "--unit",
        "u1-stock-ledger",
        "--sarif",
        "out.sarif",
        cwd=tmp_path,
    )
    assert done.returncode in (0, 1), done.stderr
    record = workspace / "aidlc-docs/construction/u1-stock-ledger/code-review"
    findings = json.loads((record / "code-review-findings.json").read_text())
    assert findings["verdict"] == ("READY" if done.returncode == 0 else "NOT-READY")
    assert (record / "code-review.md").read_text().startswith("# Code review")
    assert json.loads((tmp_path / "out.sarif").read_text())["version"] == "2.1.0"
    sensors = wheel_venv.run("sensors", "list", cwd=tmp_path)
    assert sensors.returncode == 0 and "secret-scan" in sensors.stdout
    manifest = workspace / "aidlc-docs/construction/u1-stock-ledger/code-generation"
    ran = wheel_venv.run(
        "sensors",
        "run",
        "--workspace",
        str(workspace),
        "--manifest",
        str(manifest / "source-manifest.json"),
        "--sensor",
        "secret-scan",
        "--json",
        cwd=tmp_path,
    )
    assert ran.returncode == 0, ran.stderr
    (check,) = json.loads(ran.stdout)["checks"]
    assert (check["name"], check["status"]) == ("secret-scan", "passed")


def test_the_packaged_definitions_are_read_only(wheel_venv: Installed, tmp_path):
    before = sorted(p.name for p in (wheel_venv.venv).rglob("_plugin/tools/data/*"))
    for argv in (("compile",), ("scope", "add", "code-review", "poc")):
        done = wheel_venv.run(*argv, cwd=tmp_path)
        assert done.returncode == 2
        assert (
            "the installed plugin's own definitions are read-only; name the harness to "
            "change with --harness DIR" in done.stderr
        )
    assert sorted(p.name for p in (wheel_venv.venv).rglob("_plugin/tools/data/*")) == before
