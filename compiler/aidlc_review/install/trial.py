"""The harness as it would be after an install, compiled in a scratch copy.

The changed texts are laid over a copy of the harness's definition files in a
temporary directory, then loaded, validated and compiled with this project's
compiler (the same bytes upstream's compiler writes; numbers pinned as given).
The plans are compiled from the *source form* of the same harness: code-review
as authored (``reviews``, ``repair_agent``, ``max_passes``) and code-generation
with plan approval and without its embedded reviewer, which is the gate plan
this plugin stands for, whether or not upstream can present it yet. As upstream's compile
does, a stage already in the existing graph keeps its display name there (``kept_names``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aidlc_review.compile.build import SCOPE_GRID, STAGE_GRAPH, compile_harness, load_valid
from aidlc_review.compile.overlay import overlaid
from aidlc_review.harness.layout import HarnessLayout
from aidlc_review.harness.review_plan import InstalledParts
from aidlc_review.harness.yamledit import FrontmatterText, check_edit, scalar_list_block

EMBEDDED_REVIEW_KEYS = ("reviewer", "reviewer_max_iterations", "review_class", "review_artifact")


def harness_dir_name(harness: Path) -> str:
    """The harness directory as upstream names it (e.g. ``.claude``): the root of display
    paths in the graph and of sensor commands. ``harnessDir`` of ``tools/data/harness.json``,
    else the root the existing graph's sensor paths use, else the directory's own name."""
    import json

    data = harness / "tools" / "data"
    try:
        named = json.loads((data / "harness.json").read_text(encoding="utf-8")).get("harnessDir")
        if isinstance(named, str) and named:
            return named
    except (OSError, ValueError, AttributeError):
        pass
    try:
        for node in json.loads((data / STAGE_GRAPH).read_text(encoding="utf-8")):
            for sensor in node.get("sensors_applicable", []):
                return str(sensor["path"]).split("/sensors/")[0]
    except (OSError, ValueError, AttributeError, KeyError, TypeError):
        pass
    return harness.name


def compile_trial(
    layout: HarnessLayout,
    changes: dict[str, str],
    pins: dict[str, str],
    display_root: str | None = None,
) -> dict[str, str]:
    """stage-graph.json and scope-grid.json of the harness plus ``changes``."""
    shown = display_root or harness_dir_name(layout.root)
    with overlaid(layout, changes) as trial:
        compiled = compile_harness(trial, shown, pinned=pins)
        outputs = {name: compiled.outputs[name] for name in (STAGE_GRAPH, SCOPE_GRID)}
    outputs[STAGE_GRAPH] = kept_names(outputs[STAGE_GRAPH], layout.data_dir / STAGE_GRAPH)
    return outputs


def kept_names(graph: str, existing: Path) -> str:
    """``graph`` with each stage the existing graph has named keeping that name. Upstream's
    compile pins a slug's name as it pins its number (``nameBySlug.get(slug) ?? name ??
    titleCaseSlug(slug)`` in ``aidlc-graph.ts``): a stage an engine ships without ``name:``
    (``pr-integration``: "Pr Integration") keeps the name upstream's compile gave it."""
    import json

    from aidlc_review.compile.compiled import render

    try:
        before = {n["slug"]: n["name"] for n in json.loads(existing.read_text(encoding="utf-8"))}
    except (OSError, ValueError, TypeError, KeyError):
        return graph
    nodes = json.loads(graph)
    renamed = [n for n in nodes if isinstance(before.get(n["slug"]), str)]
    if all(n.get("name") == before[n["slug"]] for n in renamed):
        return graph
    for node in renamed:
        node["name"] = before[node["slug"]]
    return render(nodes)


def installed_review_plan(
    layout: HarnessLayout,
    changes: dict[str, str],
    pins: dict[str, str],
    overrides: dict[str, dict[str, Any]],
    installed: InstalledParts,
) -> str:
    """review-plan.json of the harness plus ``changes``: the reviewed stage as authored."""
    from aidlc_review.compile.review_plan import review_plan
    from aidlc_review.harness.review_plan import render_review_plan

    with overlaid(layout, changes) as trial:
        harness, graph, _ = load_valid(trial, pinned=pins)
        plan = review_plan(harness, graph, overrides, installed)
    assert plan is not None  # overrides name the reviewed stage
    return render_review_plan(plan)


def source_form_plans(
    layout: HarnessLayout,
    plugin: HarnessLayout,
    core: dict[str, str],
    scopes: list[str],
    agents: dict[str, str],
) -> dict[str, Any]:
    """The compiled gate plans (scope-plans.json content) of the harness in source form."""
    from aidlc_review.compile.plans import scope_plans_doc

    review_display = f"{plugin.display(plugin.stages_dir)}/construction/code-review.md"
    review = FrontmatterText.parse(
        (plugin.root / review_display).read_text(encoding="utf-8"), review_display
    )
    data = review.plain()
    known = known_artifacts(layout)
    consumes = [c for c in data["consumes"] if c["artifact"] in known]
    review.replace_key("scopes", scalar_list_block("scopes", scopes, "  "))
    review.replace_key("sensors", ["sensors: []"])  # gate plans do not depend on sensors
    review.replace_key("consumes", consumes_block(consumes))
    check_edit(review, {**data, "scopes": scopes, "sensors": [], "consumes": consumes})
    gen_display = "aidlc-common/stages/construction/code-generation.md"
    gen = FrontmatterText.parse(core[gen_display], gen_display)
    expected = {k: v for k, v in gen.plain().items() if k not in EMBEDDED_REVIEW_KEYS}
    for key in EMBEDDED_REVIEW_KEYS:
        gen.remove_key(key)
    gen.insert_after(("workspace_requires", "for_each", "mode"), ["plan_approval: required"])
    check_edit(gen, {**expected, "plan_approval": "required"})
    changes = {
        **agents,
        "aidlc-common/stages/construction/code-review.md": review.text,
        gen_display: gen.text,
    }
    with overlaid(layout, changes) as trial:
        harness, graph, _ = load_valid(trial)
        return scope_plans_doc(graph, harness.scopes, harness.dialect)


def consumes_block(consumes: list[dict[str, Any]]) -> list[str]:
    if not consumes:
        return ["consumes: []"]
    lines = ["consumes:"]
    for entry in consumes:
        lines.append(f"  - artifact: {entry['artifact']}")
        lines.append(f"    required: {'true' if entry['required'] else 'false'}")
    return lines


def known_artifacts(layout: HarnessLayout) -> set[str]:
    """The artifacts code-review may consume in this harness: those exactly one stage
    produces. Upstream resolves a consume under its first producer (``producersOf(name)[0]``
    in ``aidlc-orchestrate.ts``), so where several produce one (2.6 gives six design stages
    and code-generation each a ``traceability``) a consume would read another stage's; it is
    left out (``dropped_consumes``), and the one-producer rule stays as strict as it is."""
    harness, _, _ = load_valid(layout)
    count: dict[str, int] = {}
    for stage in harness.stages:
        for artifact in {*stage.produces, *(stage.optional_produces or [])}:
            count[artifact] = count.get(artifact, 0) + 1
    return {artifact for artifact, producers in count.items() if producers == 1}


def harness_scopes(layout: HarnessLayout) -> set[str]:
    return {path.stem.removeprefix("aidlc-") for path, _ in layout.scope_files()}
