"""The composite action and the documented workflow pass actionlint (from PyPI).

The workflow in docs/ci.md is linted as a team would copy it, and once more with its
``<owner>/aidlc-code-review@...`` replaced by ``./`` beside a copy of action.yml, so that
actionlint also checks every ``with:`` against the action's declared inputs.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from ruamel.yaml import YAML

from aidlc_review.harness.layout import PROJECT_ROOT

ACTIONLINT = Path(sys.executable).parent / "actionlint"
DOCS = PROJECT_ROOT / "docs" / "ci.md"


def documented_workflow() -> str:
    blocks = re.findall(r"```yaml\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.S)
    (workflow,) = [b for b in blocks if b.startswith("name: ")]
    return workflow


def lint(repo: Path, workflow: str) -> subprocess.CompletedProcess[str]:
    target = repo / ".github" / "workflows" / "code-review.yml"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(workflow, encoding="utf-8")
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    return subprocess.run(
        [str(ACTIONLINT), "-no-color", "-oneline", str(target)],
        cwd=repo,
        capture_output=True,
        text=True,
    )


def with_local_action(repo: Path, workflow: str) -> str:
    shutil.copy2(PROJECT_ROOT / "action.yml", repo / "action.yml")
    return re.sub(r"<owner>/aidlc-code-review@\S+", "./", workflow)


def test_the_documented_workflow_passes(tmp_path):
    done = lint(tmp_path, documented_workflow())
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_workflow_against_the_action_passes_with_its_matrix(tmp_path):
    workflow = with_local_action(tmp_path, documented_workflow())
    assert "uses: ./\n" in workflow
    assert "unit: ${{ fromJSON(needs.units.outputs.units) }}" in workflow
    done = lint(tmp_path, workflow)
    assert done.returncode == 0, done.stdout + done.stderr


def test_actionlint_does_read_the_action_inputs(tmp_path):
    """The check above is not vacuous: a misspelt input of the action is an error."""
    workflow = with_local_action(tmp_path, documented_workflow())
    done = lint(tmp_path, workflow.replace("reviewer: builtin", "reviewr: builtin"))
    assert done.returncode == 1
    assert 'input "reviewr" is not defined in action "aidlc-review"' in done.stdout


def test_the_action_is_composite_and_every_script_names_its_shell():
    action = YAML(typ="safe").load((PROJECT_ROOT / "action.yml").read_text(encoding="utf-8"))
    assert action["runs"]["using"] == "composite"
    steps = action["runs"]["steps"]
    assert all("shell" in step for step in steps if "run" in step)
    uses = [step["uses"] for step in steps if "uses" in step]
    assert "github/codeql-action/upload-sarif@v3" in uses
    assert set(action["inputs"]) >= {"units", "reviewer", "sarif", "record", "workspace"}
