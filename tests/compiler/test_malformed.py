"""Every malformed input gets its full breadcrumb, exit code 2, and nothing written.

Each case edits one file of the small valid harness in harness_factory.py and
asserts the complete stderr of ``aidlc-review compile``.
"""

from __future__ import annotations

import pytest

from aidlc_review.cli.main import main
from tests.compiler.harness_factory import BUILD, edit, write_harness

B = "stages/construction/build.md"
C = "stages/construction/check.md"
U = "stages/inception/plan-units.md"

CASES = [
    (
        B,
        "    required: true",
        "    required: yes",
        'stages/construction/build.md:15: consumes[0].required: must be a boolean (true or false), got "yes"\n',
    ),
    (
        B,
        "phase: construction",
        "phase: constructoin",
        "stages/construction/build.md:3: phase: must be one of initialization, ideation, inception, construction, operation; got \"constructoin\" (did you mean 'construction'?)\n",
    ),
    (
        B,
        "mode: subagent",
        "mode: swarm",
        'stages/construction/build.md:8: mode: must be one of inline, subagent, pipeline, mob, agent-team; got "swarm"\n',
    ),
    (
        B,
        "mode: subagent",
        "mode: agent-team",
        "stages/construction/build.md:8: mode: mode agent-team is reserved and not yet implemented\n",
    ),
    (
        B,
        "mode: subagent",
        "mode: mob",
        "stages/construction/build.md:8: mode: mode mob requires a non-empty support_agents\n",
    ),
    (
        B,
        "mode: subagent",
        "mode: pipeline",
        "stages/construction/build.md:8: mode: mode pipeline requires a non-empty support_agents\n",
    ),
    (
        B,
        "inputs: the unit\n",
        "inputs: the unit\nplugin: acme\n",
        "stages/construction/build.md:24: plugin: stages of plugin 'acme' must have slugs starting with 'acme-', got 'build'\n",
    ),
    (
        B,
        "inputs: the unit\n",
        "inputs: the unit\nplugin: aidlc\n",
        "stages/construction/build.md:24: plugin: 'aidlc' is core's namespace; omit plugin for core stages\n",
    ),
    (
        B,
        "inputs: the unit\n",
        "inputs: the unit\nproduces_kinds:\n  code-summary: [robot]\n",
        "stages/construction/build.md:24: produces_kinds: 'code-summary' lists 'robot'; kinds are service, spec, ui, packaging, library\n",
    ),
    (
        B,
        "inputs: the unit\n",
        "inputs: the unit\nproduces_kinds:\n  elsewhere: [ui]\n",
        "stages/construction/build.md:24: produces_kinds: 'elsewhere' is not in produces\n",
    ),
    (
        B,
        "inputs: the unit\n",
        "inputs: the unit\noptional_produces:\n  - Bad\n",
        "stages/construction/build.md:25: optional_produces[0]: must be lowercase kebab-case (like 'code-review'), got \"Bad\"\n",
    ),
    (
        B,
        "inputs: the unit\n",
        "inputs: the unit\nwhen: code-summary\n",
        'stages/construction/build.md:24: when: must be a mapping, got "code-summary"\n',
    ),
    (
        B,
        "execution: ALWAYS",
        "execution: always",
        'stages/construction/build.md:4: execution: must be one of ALWAYS, CONDITIONAL; got "always"\n',
    ),
    (
        B,
        "lead_agent: aidlc-dev-agent",
        "lead_agent: aidlc-devv-agent",
        "stages/construction/build.md:6: lead_agent: unknown agent 'aidlc-devv-agent' (did you mean 'aidlc-dev-agent'?)\n",
    ),
    (
        B,
        "support_agents: []",
        "support_agents:\n  - aidlc-nobody",
        "stages/construction/build.md:8: support_agents[0]: unknown agent 'aidlc-nobody'\n",
    ),
    (
        B,
        "slug: build",
        "slug: Build_It",
        "stages/construction/build.md:2: slug: must be lowercase kebab-case (like 'code-review'), got \"Build_It\"\n",
    ),
    (
        B,
        "slug: build",
        "slug: built",
        "stages/construction/build.md:2: slug: 'built' does not match the file name 'build'\n",
    ),
    (B, "condition: Always.\n", "", "stages/construction/build.md:2: condition: is required\n"),
    (
        B,
        "inputs: the unit\n",
        "inputs: the unit\ntimeout: 30\n",
        "stages/construction/build.md:24: timeout: is reserved for a future release and cannot be used yet\n",
    ),
    (
        B,
        "inputs: the unit\n",
        "inputs: the unit\nconditon: x\n",
        "stages/construction/build.md:24: conditon: unknown key (did you mean 'condition'?)\n",
    ),
    (
        B,
        "  - lint",
        "  - lnt",
        "stages/construction/build.md:19: sensors[0]: unknown sensor 'lnt' (did you mean 'lint'?)\n",
    ),
    (
        B,
        "  - plan-units",
        "  - plan-unit",
        "stages/construction/build.md:9: for_each: artifact 'unit-of-work' is not produced by any upstream stage\nstages/construction/build.md:17: requires_stage[0]: unknown stage 'plan-unit' (did you mean 'plan-units'?)\nstages/construction/check.md:9: for_each: artifact 'unit-of-work' is not produced by any upstream stage\n",
    ),
    (
        B,
        "  - poc",
        "  - pco",
        "stages/construction/build.md:22: scopes[1]: no scope file scopes/aidlc-pco.md for scope 'pco' (did you mean 'poc'?)\n",
    ),
    (
        B,
        "for_each: unit-of-work",
        "for_each: story",
        "stages/construction/build.md:9: for_each: artifact 'story' is not produced by any upstream stage\nstages/construction/check.md:10: reviews: reviewed stage 'build' runs for_each 'story' but this stage runs for_each 'unit-of-work'\n",
    ),
    (
        B,
        "    required: true",
        "    required: true\n    conditional_on: always",
        'stages/construction/build.md:16: consumes[0].conditional_on: must be one of brownfield, greenfield; got "always"\n',
    ),
    (
        B,
        "    required: true",
        "    required: true\n    optional: true",
        "stages/construction/build.md:16: consumes[0].optional: unknown key (did you mean 'conditional_on'?)\n",
    ),
    (
        B,
        "produces:\n  - code-summary",
        "produces: code-summary",
        'stages/construction/build.md:11: produces: must be a list, got "code-summary"\n',
    ),
    (
        B,
        "workspace_requires: true",
        "workspace_requires: false",
        "stages/construction/check.md:10: reviews: reviewed stage 'build' must declare workspace_requires: true\n",
    ),
    (
        B,
        "mode: subagent",
        "mode: subagent\nreviewer_max_iterations: 3",
        "stages/construction/build.md:9: reviewer_max_iterations: needs a reviewer\n",
    ),
    (
        B,
        "mode: subagent",
        "mode: subagent\nrepair_agent: aidlc-dev-agent",
        "stages/construction/build.md:9: repair_agent: only valid on a stage with a review loop (reviewer or reviews)\n",
    ),
    (
        B,
        "mode: subagent",
        "mode: subagent\nreviewer: aidlc-reviewer-agent",
        "stages/construction/check.md:10: reviews: reviewed stage 'build' still has an embedded reviewer (stages/construction/build.md:9); remove it so review is not done twice\n",
    ),
    (
        C,
        "reviews: build",
        "reviews: buld",
        "stages/construction/check.md:10: reviews: unknown stage 'buld' (did you mean 'build'?)\n",
    ),
    (
        C,
        "  gated: 2",
        "  gated: 0",
        "stages/construction/check.md:13: max_passes.gated: must be >= 1, got 0\n",
    ),
    (
        C,
        "  autonomous: 3",
        "  autonomous: three",
        'stages/construction/check.md:14: max_passes.autonomous: must be an integer, got "three"\n',
    ),
    (
        B,
        "  - feature\n  - poc",
        "  - poc",
        "stages/construction/check.md:24: scopes[0]: executes in scope 'feature' where the reviewed stage 'build' does not\n",
    ),
    (
        C,
        "  - build\n",
        "  - plan-units\n",
        "stages/construction/check.md:10: reviews: reviewed stage 'build' must be listed in requires_stage\n",
    ),
    (
        C,
        "repair_agent: aidlc-dev-agent",
        "repair_agent: aidlc-dve-agent",
        "stages/construction/check.md:11: repair_agent: unknown agent 'aidlc-dve-agent' (did you mean 'aidlc-dev-agent'?)\n",
    ),
    (
        C,
        "for_each: unit-of-work\n",
        "",
        "stages/construction/check.md:9: reviews: reviewed stage 'build' runs for_each 'unit-of-work' but this stage runs once (no for_each)\n",
    ),
    (
        B,
        "  - plan-units",
        "  - check",
        "stages/construction/build.md:9: for_each: artifact 'unit-of-work' is not produced by any upstream stage\nstages/construction/check.md:9: for_each: artifact 'unit-of-work' is not produced by any upstream stage\nstages/construction/check.md:21: requires_stage[0]: requires_stage cycle: build --> check --> build\n",
    ),
    (
        B,
        "slug: build\n",
        "slug: build\nslug: again\n",
        'stages/construction/build.md:3: invalid YAML: found duplicate key "slug" with value "again" (original value: "build")\n',
    ),
    (
        B,
        "condition: Always.",
        "condition: [unclosed",
        "stages/construction/build.md:6: invalid YAML: expected ',' or ']', but got ':'\n",
    ),
    (
        B,
        "---\nslug",
        "slug",
        "stages/construction/build.md:1: no YAML frontmatter (the file must start with '---')\n",
    ),
    (
        U,
        "  - unit-of-work",
        "  - unit-of-work\n  - code-summary",
        "stages/inception/plan-units.md:11: produces[1]: consumed artifact 'code-summary' has two producers: build (stages/construction/build.md:2) and plan-units\n",
    ),
    (
        "scopes/aidlc-poc.md",
        "depth: Standard",
        "depth: deep",
        'scopes/aidlc-poc.md:3: depth: must be one of Minimal, Standard, Comprehensive; got "deep"\n',
    ),
    (
        "sensors/aidlc-lint.md",
        "kind: deterministic",
        "kind: fuzzy",
        'sensors/aidlc-lint.md:3: kind: must be one of deterministic; got "fuzzy"\n',
    ),
    (
        "agents/aidlc-dev-agent.md",
        "name: aidlc-dev-agent",
        "name: aidlc-developer",
        "agents/aidlc-dev-agent.md:2: name: 'aidlc-developer' does not match the file name 'aidlc-dev-agent'\n",
    ),
    (
        B,
        "mode: subagent",
        "mode: subagent\nplan_approval: yes",
        'stages/construction/build.md:9: plan_approval: must be one of required; got "yes"\n',
    ),
    (
        B,
        "mode: subagent",
        "mode: subagent\nnumber: 3.x",
        "stages/construction/build.md:9: number: must be a stage number like '3.5', got \"3.x\"\n",
    ),
    (
        "stages/construction/twin.md",
        None,
        None,
        "stages/construction/twin.md:2: slug: 'build' does not match the file name 'twin'\nstages/construction/twin.md:2: slug: duplicate slug 'build' (also stages/construction/build.md:2)\n",
    ),
    (
        B,
        "phase: construction",
        "phase: inception",
        "stages/construction/build.md:3: phase: 'inception' does not match its folder 'construction'\n",
    ),
    (
        "sensors/aidlc-lint.md",
        "timeout_seconds: 30",
        "timeout_seconds: 30\nrunner:\n  name: lint\n  requierd: true",
        "sensors/aidlc-lint.md:12: runner.requierd: unknown key (did you mean 'required'?)\n",
    ),
    (
        "agents/aidlc-dev-agent.md",
        "description: aidlc-dev-agent does its job.\n",
        "",
        "agents/aidlc-dev-agent.md:2: description: is required\n",
    ),
    (
        B,
        "support_agents: []",
        "support_agents: aidlc-dev-agent",
        'stages/construction/build.md:7: support_agents: must be a list, got "aidlc-dev-agent"\n',
    ),
]


def _ids(case):
    return f"{case[0].split('/')[-1]}:{(case[2] or 'copy')[:30]}"


@pytest.mark.parametrize("path, old, new, expected", CASES, ids=[_ids(c) for c in CASES])
def test_malformed_input_is_reported_with_its_breadcrumb(
    tmp_path, capsys, path, old, new, expected
):
    root = write_harness(tmp_path / "h")
    if old is None:
        (root / path).write_text(BUILD)  # a second file with an existing slug
    else:
        edit(root, path, old, new)
    strict = ["--strict"] if "no scope file" in expected else []
    assert main(["compile", "--harness", str(root), *strict]) == 2
    err = capsys.readouterr().err.replace(f"{root}/", "")
    assert err == expected
    assert not (root / "tools").exists(), "nothing may be written on error"


def test_there_are_at_least_thirty_distinct_cases():
    assert len({(c[0], c[1], c[2]) for c in CASES}) >= 30
    assert len({c[3] for c in CASES}) >= 30


def test_errors_leave_existing_outputs_untouched(tmp_path, capsys):
    root = write_harness(tmp_path / "h")
    data = root / "tools" / "data"
    data.mkdir(parents=True)
    (data / "stage-graph.json").write_text("previous\n")
    edit(root, B, "mode: subagent", "mode: swarm")
    assert main(["compile", "--harness", str(root)]) == 2
    assert (data / "stage-graph.json").read_text() == "previous\n"
    assert sorted(p.name for p in data.iterdir()) == ["stage-graph.json"]
    assert "Traceback" not in capsys.readouterr().err


def test_scope_without_file_is_a_warning_unless_strict(tmp_path, capsys):
    root = write_harness(tmp_path / "h")
    edit(root, B, "  - poc", "  - pco")
    assert main(["compile", "--harness", str(root)]) == 0
    assert capsys.readouterr().err.splitlines()[0] == (
        "warning: stages/construction/build.md:22: scopes[1]: "
        "no scope file scopes/aidlc-pco.md for scope 'pco' (did you mean 'poc'?)"
    )
    assert main(["compile", "--harness", str(root), "--strict"]) == 2


def test_not_a_harness_is_refused(tmp_path, capsys):
    assert main(["compile", "--harness", str(tmp_path)]) == 2
    assert capsys.readouterr().err == (
        f"{tmp_path}: not an AI-DLC harness (no aidlc-common/stages/ or stages/ folder)\n"
    )
