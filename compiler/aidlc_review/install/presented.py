"""What upstream's engine will actually present, for a harness the plugin is installed in.

Upstream gates every executed stage outside initialization once, at the stage
level (on its last unit), and has no key that suppresses one. So in an installed
harness code-generation keeps its completion gate even where code-review runs;
the plan this plugin compiled (code-generation's gate replaced by code-review's)
stays in the ledger until upstream can express it (docs/upstream-gate-deferral.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aidlc_review.compile.build import STAGE_GRAPH, load_valid, pinned_numbers
from aidlc_review.harness.layout import HarnessLayout
from aidlc_review.install.ledger import Ledger

WHY = (
    "upstream's orchestrator gates every executed stage once per stage and has no key that "
    "defers one, so code-generation's completion gate remains; this plugin's own plan (in "
    "the ledger) replaces it with code-review's gate - the upstream change that would allow "
    "it is proposed in docs/upstream-gate-deferral.md"
)


def presented_plan(harness: Path, ledger: Ledger, scope: str, mode: str) -> dict[str, Any]:
    layout = HarnessLayout.at(harness)
    _, graph, _ = load_valid(layout, pinned=pinned_numbers(layout.data_dir / STAGE_GRAPH))
    numbers = graph.numbers()
    stages = []
    for stage in graph.scope_stages(scope):
        entry: dict[str, Any] = {
            "slug": stage.slug,
            "number": numbers[stage.slug],
            "lead_agent": stage.lead_agent,
            "reviewer": stage.reviewer,
            "passes": stage.reviewer_max_iterations if stage.reviewer else None,
            "gate": None if stage.phase == "initialization" else "completion, once per stage",
        }
        if stage.slug == ledger.stage.slug:
            entry.update(
                passes=ledger.stage.max_passes[mode],
                gate="completion, once per stage (approval needs every unit READY)",
            )
        stages.append(entry)
    gates = sum(1 for s in stages if s["gate"])
    planned = ledger.plans.get("scopes", {}).get(scope, {}).get(mode)
    return {
        "scope": scope,
        "mode": mode,
        "installed": True,
        "stages": stages,
        "gates_presented": gates,
        "plugin_plan_gate_counts": planned["gate_counts"] if planned else None,
        "why": WHY if any(s["slug"] == ledger.stage.reviews for s in stages) else None,
    }


def render_presented(plan: dict[str, Any]) -> str:
    rows = [["#", "stage", "lead", "reviewer", "passes", "gate upstream presents"]]
    for s in plan["stages"]:
        rows.append(
            [
                s["number"],
                s["slug"],
                s["lead_agent"],
                s["reviewer"] or "-",
                "-" if s["passes"] is None else str(s["passes"]),
                s["gate"] or "-",
            ]
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    table = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    head = f"scope {plan['scope']}, {plan['mode']} construction, as upstream's engine runs it"
    lines = [head, *table, f"gates upstream presents: {plan['gates_presented']} (one per stage)"]
    if plan["why"]:
        lines.append(f"why: {plan['why']}")
    return "\n".join(lines) + "\n"
