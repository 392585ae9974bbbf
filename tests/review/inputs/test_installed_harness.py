"""The review runs in an upstream harness after ``install``, with Python-aware sensors."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from aidlc_review.cli.main import main
from aidlc_review.harness.layout import PROJECT_ROOT

SHARED = PROJECT_ROOT.parent / "shared" / "aidlc-harness"
EXAMPLE = PROJECT_ROOT / "examples" / "inventory-service"


def test_review_in_an_installed_upstream_harness_lints_python(tmp_path, capsys):
    harness = tmp_path / "harness"
    shutil.copytree(SHARED, harness)
    for path in harness.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    assert main(["install", "--harness", str(harness)]) == 0
    workspace = tmp_path / "ws"
    shutil.copytree(EXAMPLE, workspace)
    capsys.readouterr()

    code = main(
        [
            "review",
            "run",
            "--workspace",
            str(workspace),
            "--unit",
            "u1-stock-ledger",
            "--harness",
            str(harness),
            "--json",
        ]
    )

    assert code == 1
    findings = json.loads(
        (
            workspace
            / "aidlc-docs/construction/u1-stock-ledger/code-review/code-review-findings.json"
        ).read_text()
    )
    checks = {c["name"]: c for c in findings["passes"][0]["checks"]}
    # the plugin's sensors are installed under their own ids, beside upstream's eslint/tsc ones
    assert checks["review-linter"]["status"] == "failed"
    assert checks["review-type-check"]["status"] == "passed"
    rules = {f.get("rule") for f in findings["passes"][0]["findings"]}
    assert "F401" in rules
    assert Path(harness / "sensors/aidlc-linter.md").read_text().startswith("---\nid: linter\n")
    assert findings["passes"][0]["verdict"] == "NOT-READY"  # blocking as the ledger says


def _installed(tmp_path: Path) -> Path:
    harness = tmp_path / "harness"
    shutil.copytree(SHARED, harness)
    for path in harness.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    assert main(["install", "--harness", str(harness)]) == 0
    return harness


def test_a_bad_key_in_a_stage_the_review_does_not_run_cannot_stop_it(tmp_path, capsys):
    harness = _installed(tmp_path)
    stage = harness / "aidlc-common/stages/inception/requirements-analysis.md"
    stage.write_text(stage.read_text().replace("---\n", "---\nnot_a_stage_key: 1\n", 1))
    workspace = tmp_path / "ws"
    shutil.copytree(EXAMPLE, workspace)
    assert main(["compile", "--harness", str(harness), "--check"]) == 2  # the compiler objects
    capsys.readouterr()

    args = ["--workspace", str(workspace), "--unit", "u1-stock-ledger", "--harness", str(harness)]
    assert main(["review", "run", *args]) == 1  # reviewed: NOT-READY on its F401, not exit 2

    assert "not_a_stage_key" not in capsys.readouterr().err


def test_a_review_imports_neither_the_compiler_nor_the_installer(tmp_path):
    workspace = tmp_path / "ws"
    shutil.copytree(EXAMPLE, workspace)
    _installed(tmp_path).rename(workspace / ".claude")  # the workspace's own harness
    program = (
        "import sys\n"
        "from aidlc_review.cli.main import main\n"
        "code = main(sys.argv[1:])\n"
        "loaded = sorted(m for m in sys.modules if m.startswith(('aidlc_review.compile', "
        "'aidlc_review.install')))\n"
        "print(code, loaded)\n"
    )
    args = ["--workspace", str(workspace), "--unit", "u1-stock-ledger"]
    for verb, code in (("run", 1), ("verify", 0), ("status", 0)):  # verify: fresh (not READY)
        done = subprocess.run(
            [sys.executable, "-c", program, "review", verb, *args],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        assert done.stdout.splitlines()[-1] == f"{code} []", (verb, done.stdout, done.stderr)
