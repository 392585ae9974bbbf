"""``install --harness DIR``: work out every byte the plugin adds to an upstream project.

Nothing is written here. The plan starts from the project as it was before the
plugin (a re-install first takes its own earlier additions back out, in memory),
lowers the plugin's definitions (``lower``), adds its contributions to
code-generation and build-and-test as removable blocks (``blocks``), pins
code-review's number after code-generation (``numbering``), validates and
compiles the result with this project's compiler, and records it all in the
ledger. ``apply`` writes the files; upstream's generators then run (``upstream``),
and upstream's doctor judges the result, which is rolled back if it objects
(``transaction``). An engine newer than the verified ones is refused unless forced,
and lowering follows what the engine's schema and tools say it does (``engine_contract``,
``newer``): an engine whose contract install cannot lower is refused, forced or not.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aidlc_review import __version__
from aidlc_review.compile.build import SCOPE_GRID, STAGE_GRAPH, pinned_numbers
from aidlc_review.errors import InvalidInput
from aidlc_review.harness.layout import HarnessLayout, plugin_root
from aidlc_review.harness.review_plan import PLAN_PATH, Inserted, InstalledParts
from aidlc_review.harness.yamledit import FrontmatterText
from aidlc_review.install import blocks, engine_hook, numbering
from aidlc_review.install.contributions import load_contributions
from aidlc_review.install.ledger import (
    AddedFile,
    Insertion,
    Ledger,
    ReviewStage,
    ledger_path,
    read_ledger,
    render_ledger,
    sha256_text,
)
from aidlc_review.install.lower import (
    installed_sensor_id,
    lower_review_stage,
    lower_sensor,
    sensor_shim,
    shim_name,
)
from aidlc_review.install.newer import (
    Lowering,
    manifest_step,
    pr_integration_edit,
    with_review_slot_step,
    with_unit_records,
)
from aidlc_review.install.trial import (
    compile_trial,
    harness_dir_name,
    installed_review_plan,
    source_form_plans,
)

REVIEW = "code-review"
REVIEWED = "code-generation"
DOWNSTREAM = "build-and-test"
PR_STAGE = "pr-integration"  # upstream's, 3.6 on: edited only where the engine has it
CONSTRUCTION = "aidlc-common/stages/construction"
LEDGER = f"tools/data/{ledger_path(Path('.')).name}"


@dataclass(frozen=True)
class FileChange:
    display: str  # relative to the harness root
    before: str | None  # None: a new file
    after: str | None  # None: the file goes

    def diff(self) -> str:
        old = [] if self.before is None else self.before.splitlines(keepends=True)
        new = [] if self.after is None else self.after.splitlines(keepends=True)
        a = "/dev/null" if self.before is None else f"a/{self.display}"
        b = "/dev/null" if self.after is None else f"b/{self.display}"
        return "".join(difflib.unified_diff(old, new, a, b))


@dataclass
class InstallPlan:
    root: Path
    changes: list[FileChange] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what the user should know, not a change

    def diff(self) -> str:
        return "".join(change.diff() for change in self.changes)


def _read(path: Path) -> str:
    return path.read_bytes().decode("utf-8")


def recognise(harness_dir: Path) -> HarnessLayout:
    layout = HarnessLayout.at(harness_dir)
    if layout.root == plugin_root():
        raise InvalidInput(
            f"{layout.root}: this is the plugin itself; name an installed harness to install into"
        )
    for slug in (REVIEWED, DOWNSTREAM):
        if not layout.installed or not (layout.root / CONSTRUCTION / f"{slug}.md").is_file():
            raise InvalidInput(
                f"{layout.root}: not an installed AI-DLC harness "
                f"(expected {CONSTRUCTION}/{slug}.md)"
            )
    return layout


def _refuse_unit_major(project: Path, before: str) -> None:
    """Under unit-major iteration upstream would schedule an inline per-unit stage such as
    code-review among the design stages, before the unit's code exists. (Uninstalling is
    not refused for it: taking code-review out is one way out of that.)"""
    from aidlc_review.upstream.intents import project_intents, unit_major_refusal

    for state in project_intents(project):
        if state.unit_major:
            raise InvalidInput(unit_major_refusal(state, before))


def pristine_texts(layout: HarnessLayout, ledger: Ledger | None, strict: bool) -> dict[str, str]:
    """The core stages this plugin edits, as they were before it (its blocks taken out)."""
    edited = [f"{CONSTRUCTION}/{slug}.md" for slug in (REVIEWED, DOWNSTREAM, PR_STAGE)]
    texts = {d: _read(layout.root / d) for d in edited if (layout.root / d).is_file()}
    for display, text in texts.items():
        text = blocks.strip_fragments(text)
        for ins in ledger.inserted if ledger else []:
            if ins.path == display and ins.kind == "list-lines":
                lines = ins.text.splitlines()
                try:
                    text = blocks.remove_lines(text, ins.key, lines, display)
                except InvalidInput:
                    if strict:
                        raise
        texts[display] = text
    texts.update(engine_hook.pristine(layout.root, ledger, strict))
    return texts


def plan_install(
    harness_dir: Path, chosen_scopes: list[str] | None = None, force: bool = False
) -> InstallPlan:
    """Every file change of an install (or re-install); validated; nothing written.
    ``force``: install into an engine newer than the verified ones (``engine_contract``)."""
    from aidlc_review.install.engine_contract import refuse_unverified

    layout = recognise(harness_dir)
    refuse_unverified(layout.root, force)
    lowering = Lowering.read(layout.root)  # refuses a contract it cannot lower
    doing = "installing" if chosen_scopes is None else "changing code-review's scopes"
    _refuse_unit_major(layout.root.parent, doing)
    plugin = HarnessLayout.at(None)
    earlier = read_ledger(layout.root)
    core = pristine_texts(layout, earlier, strict=False)
    if chosen_scopes is None and earlier is not None and earlier.scopes_chosen:
        chosen_scopes = list(earlier.scopes)
    files, inserted, stage = _lowered_files(layout, plugin, core, chosen_scopes, lowering)
    pins = pinned_numbers(layout.data_dir / STAGE_GRAPH)
    if earlier is not None:
        pins = numbering.remove(pins, REVIEW, earlier.displaced_numbers)
    pins, displaced = numbering.insert_after(pins, REVIEWED, REVIEW)
    compiled = compile_trial(layout, files, pins)
    agents = {d: t for d, t in files.items() if d.startswith("agents/")}
    plans = source_form_plans(layout, plugin, core, stage["scopes"], agents)
    added = [
        AddedFile(path=d, sha256=sha256_text(t)) for d, t in sorted(files.items()) if d not in core
    ]
    ledger = Ledger(
        plugin="aidlc-code-review",
        plugin_version=__version__,
        harness_dir=harness_dir_name(layout.root),
        stage=stage["model"],
        scopes=stage["scopes"],
        scopes_chosen=chosen_scopes is not None,
        plans=plans,
        added=added,
        inserted=inserted,
        displaced_numbers=displaced,
    )
    outputs = {
        **files,
        f"tools/data/{STAGE_GRAPH}": compiled[STAGE_GRAPH],
        f"tools/data/{SCOPE_GRID}": compiled[SCOPE_GRID],
        LEDGER: render_ledger(ledger),
        PLAN_PATH: installed_review_plan(
            layout, files, pins, _authored(ledger.stage), _installed_parts(added, inserted)
        ),
    }
    return _diff_plan(layout, outputs, stale=_stale_added(layout, earlier, outputs))


def _authored(stage: ReviewStage) -> dict[str, dict[str, Any]]:
    """code-review as authored, for the review plan: upstream's lowered form leads it by its
    repairer and reviews it by its reviewer (upstream's one review loop)."""
    return {
        REVIEW: {
            "reviews": stage.reviews,
            "reviewer": stage.reviewer,
            "repair_agent": stage.repair_agent,
            "max_passes": dict(stage.max_passes),
        }
    }


def _installed_parts(added: list[AddedFile], inserted: list[Insertion]) -> InstalledParts:
    what = {
        "fragment": "the plugin's step at {} is",
        "json-lines": "the plugin's engine gate hook is",
    }
    parts = [
        Inserted(
            path=i.path,
            what=what.get(i.kind, "the plugin's {} entries are").format(i.key),
            text=i.text,
        )
        for i in inserted
    ]
    return InstalledParts(added=[a.path for a in added], inserted=parts, after=REVIEWED)


def _stale_added(
    layout: HarnessLayout, earlier: Ledger | None, outputs: dict[str, str]
) -> list[str]:
    """Files an earlier install added that this one no longer does (an upgrade dropped them)."""
    if earlier is None:
        return []
    return [
        a.path for a in earlier.added if a.path not in outputs and (layout.root / a.path).is_file()
    ]


def _diff_plan(layout: HarnessLayout, outputs: dict[str, str], stale: list[str]) -> InstallPlan:
    plan = InstallPlan(layout.root)
    for display in sorted(outputs):
        path = layout.root / display
        before = _read(path) if path.is_file() else None
        if before != outputs[display]:
            plan.changes.append(FileChange(display, before, outputs[display]))
    for display in stale:
        plan.changes.append(FileChange(display, _read(layout.root / display), None))
    return plan


def _lowered_files(
    layout: HarnessLayout,
    plugin: HarnessLayout,
    core: dict[str, str],
    chosen: list[str] | None,
    lowering: Lowering,
) -> tuple[dict[str, str], list[Insertion], dict[str, Any]]:
    """Every file the install writes (display -> text), its insertions, and the stage facts."""
    from aidlc_review.install.trial import harness_scopes, known_artifacts

    source_display = f"{plugin.display(plugin.stages_dir)}/construction/{REVIEW}.md"
    source = FrontmatterText.parse(_read(plugin.root / source_display), source_display)
    data = source.plain()
    gen = FrontmatterText.parse(core[f"{CONSTRUCTION}/{REVIEWED}.md"], REVIEWED).plain()
    wanted = chosen if chosen is not None else data.get("scopes", [])
    possible = set(gen.get("scopes") or []) & harness_scopes(layout)
    missing = [s for s in wanted if chosen is not None and s not in possible]
    if missing:
        raise InvalidInput(
            f"code-review cannot execute in {', '.join(missing)}: code-generation does not run "
            "there in this harness (or the scope does not exist)"
        )
    scopes = [s for s in wanted if s in possible]  # unit-less ones reviewed at stage level
    review_text, dropped = lower_review_stage(
        source, scopes, known_artifacts(layout), lowering.review_artifact, lowering.write_budget
    )
    if lowering.review_slot:
        review_text = with_review_slot_step(review_text)
    if lowering.unit_records:
        review_text = with_unit_records(review_text)
    files = {f"{CONSTRUCTION}/{REVIEW}.md": review_text}
    sensor_ids = {installed_sensor_id(s): s for s in data.get("sensors", [])}
    for new_id, old_id in sensor_ids.items():
        manifest = FrontmatterText.parse(_read(plugin.root / f"sensors/aidlc-{old_id}.md"), old_id)
        files[f"sensors/aidlc-{new_id}.md"] = lower_sensor(manifest, harness_dir_name(layout.root))
        files[f"tools/{shim_name(new_id)}"] = sensor_shim(new_id, harness_dir_name(layout.root))
    files.update(_agents(plugin, layout, data))
    edited, inserted = _contributed(plugin, core, lowering)
    files.update(edited)
    gate_files, gate_inserted = engine_hook.contributed(core, harness_dir_name(layout.root))
    files.update(gate_files)
    inserted.extend(gate_inserted)
    stage = ReviewStage(
        slug=REVIEW,
        reviews=data["reviews"],
        reviewer=data["lead_agent"],
        repair_agent=data["repair_agent"],
        max_passes=dict(data["max_passes"]),
        sensors=sensor_ids,
        dropped_consumes=dropped,
    )
    return files, inserted, {"model": stage, "scopes": scopes}


def _agents(plugin: HarnessLayout, layout: HarnessLayout, data: dict[str, Any]) -> dict[str, str]:
    """The reviewer's persona and knowledge (always), the repairer's only when missing."""
    files = {
        f"agents/{data['lead_agent']}.md": _read(plugin.root / f"agents/{data['lead_agent']}.md")
    }
    for path in sorted((plugin.root / "knowledge" / data["lead_agent"]).rglob("*")):
        if path.is_file():
            files[plugin.display(path)] = _read(path)
    repairer = f"agents/{data['repair_agent']}.md"
    if not (layout.root / repairer).is_file():
        files[repairer] = _read(plugin.root / repairer)
    return files


def _contributed(
    plugin: HarnessLayout, core: dict[str, str], lowering: Lowering | None = None
) -> tuple[dict[str, str], list[Insertion]]:
    """code-generation and build-and-test with the plugin's blocks added, lowered for the
    engine (``newer``): its code-generation asks for the source manifest itself, so the
    plugin's block does not ask for a second one; a unit's records are where it keeps them."""
    edited: dict[str, str] = {}
    inserted: list[Insertion] = []
    for target, contribution in sorted(load_contributions(plugin.root).items()):
        display = f"{CONSTRUCTION}/{target}.md"
        if display not in core:
            raise InvalidInput(
                f"{display}: the plugin contributes to it, but install does not edit it"
            )
        text = core[display]
        lines = contribution.consumes_lines()
        if lines:
            text = blocks.append_to_list_block(text, "consumes", lines, display)
            inserted.append(
                Insertion(
                    path=display, kind="list-lines", key="consumes", text="\n".join(lines) + "\n"
                )
            )
        for fragment in contribution.fragments:
            prose = fragment.prose
            if lowering is not None and lowering.engine_manifest and target == REVIEWED:
                prose = manifest_step(prose)
            if lowering is not None and lowering.unit_records:
                prose = with_unit_records(prose)
            text = blocks.splice_fragment(text, fragment.anchor, fragment.order, prose, display)
            block = blocks.fragment_block(fragment.anchor, fragment.order, prose)
            inserted.append(
                Insertion(path=display, kind="fragment", key=fragment.anchor, text=block)
            )
        edited[display] = text
    if lowering is not None and lowering.pr_integration:
        display = f"{CONSTRUCTION}/{PR_STAGE}.md"
        edited[display], pr_inserted = pr_integration_edit(core[display], display)
        inserted.extend(pr_inserted)
    return edited, inserted


def apply_changes(plan: InstallPlan) -> None:
    from aidlc_review.fsio import write_atomic

    for change in plan.changes:
        path = plan.root / change.display
        if change.after is None:
            path.unlink(missing_ok=True)
            _prune_empty(path.parent, plan.root)
        else:
            write_atomic(path, change.after)


def _prune_empty(folder: Path, root: Path) -> None:
    while folder != root and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent
