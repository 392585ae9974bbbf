"""A small, valid harness written into a tmp dir; tests break one thing at a time.

Line numbers in the files are fixed by the texts below, so tests can assert
whole breadcrumbs (``path:line: key: message``).
"""

from __future__ import annotations

import json
from pathlib import Path

AGENT = """---
name: {name}
description: {name} does its job.
---

# {name}
"""

SENSOR = """---
id: lint
kind: deterministic
command: aidlc-review sensors fire lint
default_severity: advisory
description: Lints code.
category: code-quality
matches: "**/*.py"
timeout_seconds: 30
---

# lint
"""

SCOPE = """---
name: {name}
depth: Standard
keywords: []
description: The {name} scope.
---

# {name}
"""

SETUP = """---
slug: setup
phase: initialization
execution: ALWAYS
condition: Always.
lead_agent: orchestrator
support_agents: []
mode: inline
produces: []
consumes: []
requires_stage: []
sensors: []
scopes:
  - feature
  - poc
inputs: none
outputs: the record tree
---

# Setup
"""

PLAN_UNITS = """---
slug: plan-units
phase: inception
execution: ALWAYS
condition: Always.
lead_agent: aidlc-architect-agent
support_agents: []
mode: inline
produces:
  - unit-of-work
consumes: []
requires_stage: []
sensors: []
scopes:
  - feature
  - poc
inputs: requirements
outputs: unit-of-work.md
---

# Plan Units
"""

# Line numbers of BUILD: 2 slug, 3 phase, 4 execution, 5 condition, 6 lead_agent,
# 7 support_agents, 8 mode, 9 for_each, 10 workspace_requires, 11 produces, 12 item,
# 13 consumes, 14 artifact, 15 required, 16 requires_stage, 17 item, 18 sensors,
# 19 item, 20 scopes, 21 feature, 22 poc, 23 inputs, 24 outputs.
BUILD = """---
slug: build
phase: construction
execution: ALWAYS
condition: Always.
lead_agent: aidlc-dev-agent
support_agents: []
mode: subagent
for_each: unit-of-work
workspace_requires: true
produces:
  - code-summary
consumes:
  - artifact: unit-of-work
    required: true
requires_stage:
  - plan-units
sensors:
  - lint
scopes:
  - feature
  - poc
inputs: the unit
outputs: code and code-summary.md
---

# Build
"""

# Line numbers of CHECK: 2 slug ... 9 for_each, 10 reviews, 11 repair_agent,
# 12 max_passes, 13 gated, 14 autonomous, 15 produces, 16 item, 17 consumes,
# 18 artifact, 19 required, 20 requires_stage, 21 item, 22 sensors, 23 scopes, 24 feature.
CHECK = """---
slug: check
phase: construction
execution: ALWAYS
condition: Always.
lead_agent: aidlc-reviewer-agent
support_agents: []
mode: subagent
for_each: unit-of-work
reviews: build
repair_agent: aidlc-dev-agent
max_passes:
  gated: 2
  autonomous: 3
produces:
  - check-report
consumes:
  - artifact: code-summary
    required: true
requires_stage:
  - build
sensors: []
scopes:
  - feature
inputs: code
outputs: check-report.md
---

# Check
"""

STAGES = {
    "initialization/setup.md": SETUP,
    "inception/plan-units.md": PLAN_UNITS,
    "construction/build.md": BUILD,
    "construction/check.md": CHECK,
}


def write_harness(root: Path) -> Path:
    for agent in ("aidlc-dev-agent", "aidlc-reviewer-agent", "aidlc-architect-agent"):
        _write(root / "agents" / f"{agent}.md", AGENT.format(name=agent))
    _write(root / "sensors" / "aidlc-lint.md", SENSOR)
    for scope in ("feature", "poc"):
        _write(root / "scopes" / f"aidlc-{scope}.md", SCOPE.format(name=scope))
    for rel, text in STAGES.items():
        _write(root / "stages" / rel, text)
    return root


def edit(root: Path, rel: str, old: str, new: str) -> None:
    """Replace exactly one occurrence of ``old`` in a harness file."""
    path = root / rel
    text = path.read_text()
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times in {rel}"
    path.write_text(text.replace(old, new))


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


# --- an engine's declarations, as upstream's tools spell them (the dialect is read there) ---

STAGE_FIELDS = (
    "slug phase execution condition lead_agent support_agents mode produces consumes "
    "requires_stage inputs outputs"
).split()
OPTIONAL_STAGE_FIELDS = (
    "number name plugin for_each workspace_requires optional_produces produces_kinds sensors "
    "scopes reviewer reviewer_max_iterations when required_sections"
).split()


def _ts_list(name: str, words: list[str] | tuple[str, ...]) -> str:
    return f"const {name} = [{', '.join(json.dumps(w) for w in words)}] as const;\n"


def write_engine(
    root: Path,
    version: str = "2.6.18",
    review_classes: tuple[str, ...] | None = ("adversarial", "advisory"),
    summary_confirmations: tuple[str, ...] | None = ("required", "if-present"),
    ladder: tuple[str, ...] | None = ("none", "advisory", "adversarial"),
) -> Path:
    """Synthetic declarations of an engine in ``root/tools``: by default one that speaks as
    2.6 does; ``None`` leaves a vocabulary out (2.5 had no review classes, no summary
    confirmation and no review ladder)."""
    optional = list(OPTIONAL_STAGE_FIELDS)
    interface = ["export interface StageFrontmatter {\n"]
    for key, words in (
        ("review_class", review_classes),
        ("summary_confirmation", summary_confirmations),
    ):
        if words is not None:
            optional.append(key)
            interface.append(f"  {key}?: {' | '.join(json.dumps(w) for w in words)};\n")
    interface.append("}\n")
    node = ["slug", "number", "name", *STAGE_FIELDS[1:]]
    if review_classes is not None:
        node.append("review_class")
    _write(root / "tools" / "aidlc-version.ts", f'export const AIDLC_VERSION = "{version}";\n')
    _write(
        root / "tools" / "aidlc-stage-schema.ts",
        "".join(interface)
        + _ts_list("REQUIRED_FIELDS", STAGE_FIELDS)
        + _ts_list("OPTIONAL_FIELDS", optional),
    )
    _write(root / "tools" / "aidlc-graph.ts", _ts_list("FIELD_ORDER", node))
    _write(
        root / "tools" / "aidlc-lib.ts",
        "export " + _ts_list("REVIEW_CLASSES", ladder) if ladder is not None else "\n",
    )
    return root
