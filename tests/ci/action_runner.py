"""Runs the composite action's own bash steps locally, the way a runner would.

``uses:`` steps (setup-python, upload-sarif) are GitHub's and are only recorded, when
their ``if:`` holds; the install step is skipped because the tool under test is already
on PATH. Everything the scripts read comes from the action's ``env:`` blocks, expanded
from inputs and earlier steps' ``$GITHUB_OUTPUT``, as GitHub does. Those output files are
kept where GitHub keeps them, in the runner's temp dir (``$RUNNER_TEMP``), never in the
workspace under review.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from ruamel.yaml import YAML

from aidlc_review.harness.layout import PROJECT_ROOT

EXPR = re.compile(r"\$\{\{\s*([^}]+?)\s*\}\}")
SKIPPED = ("Install aidlc-review",)


@dataclass
class ActionRun:
    inputs: dict[str, str]
    outputs: dict[str, dict[str, str]] = field(default_factory=dict)
    used: list[str] = field(default_factory=list)
    failed: str | None = None
    logs: dict[str, str] = field(default_factory=dict)  # each step's stdout + stderr

    def value(self, expression: str) -> str:
        scope, _, rest = expression.partition(".")
        if scope == "inputs":
            return self.inputs[rest]
        if scope == "github" and rest == "action_path":
            return str(PROJECT_ROOT)
        step, _, key = rest.partition(".outputs.")
        return self.outputs.get(step, {}).get(key, "")

    def expand(self, text: str) -> str:
        return EXPR.sub(lambda m: self.value(m.group(1)), text)


def load_action() -> dict:
    return YAML(typ="safe").load((PROJECT_ROOT / "action.yml").read_text(encoding="utf-8"))


def run_action(given: dict[str, str], cwd: Path, env: dict[str, str]) -> ActionRun:
    action = load_action()
    defaults = {name: str(spec.get("default", "")) for name, spec in action["inputs"].items()}
    run = ActionRun({**defaults, **given})
    for step in action["runs"]["steps"]:
        if not step_wanted(run, step.get("if", "")):
            continue
        if "uses" in step:
            run.used.append(step["uses"])
        elif step.get("name") not in SKIPPED:
            _run_step(run, step, cwd, env)
    return run


def step_wanted(run: ActionRun, condition: str) -> bool:
    """The conditions action.yml uses: always(), an input or a step output compared with a
    string, joined by ``&&``."""
    return all(_holds(run, part.strip()) for part in condition.split("&&") if part.strip())


def _holds(run: ActionRun, condition: str) -> bool:
    if condition == "always()":
        return True
    found = re.fullmatch(r"inputs\.([\w-]+) == '(\w+)'", condition)
    if found:
        return run.inputs[found[1]] == found[2]
    found = re.fullmatch(r"steps\.(\w+)\.outputs\.(\w+) != '(\w+)'", condition)
    assert found, f"action.yml uses a condition this runner does not know: {condition}"
    return run.outputs.get(found[1], {}).get(found[2], "") != found[3]


def _run_step(run: ActionRun, step: dict, cwd: Path, env: dict[str, str]) -> None:
    output = Path(env["RUNNER_TEMP"]) / f"output-{len(run.outputs)}"
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text("")
    where = cwd / run.expand(step.get("working-directory", "."))
    step_env = {k: run.expand(str(v)) for k, v in step.get("env", {}).items()}
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
        cwd=where,
        env={**env, **step_env, "GITHUB_OUTPUT": str(output)},
        capture_output=True,
        text=True,
    )
    pairs = [line.split("=", 1) for line in output.read_text().splitlines() if "=" in line]
    run.outputs[step.get("id", step["name"])] = dict(pairs)
    run.logs[step.get("id", step["name"])] = done.stdout + done.stderr
    if done.returncode != 0 and run.failed is None:
        run.failed = f"{step['name']}: exit {done.returncode}\n{done.stdout}{done.stderr}"
