"""``install --harness DIR``: add this plugin to an installed AI-DLC harness.

Copies the code-review stage (its ``scopes:`` cut down to where the harness
runs code-generation), its lead agent and knowledge, and the agents and
sensors it names that the harness lacks; then edits the harness's own
code-generation and build-and-test in place, line by line. The whole result
is validated before the first write; a second run finds nothing to change.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path

from aidlc_review.definitions.stage import Stage
from aidlc_review.errors import Diagnostic, InvalidInput, ValidationFailed
from aidlc_review.fsio import write_atomic
from aidlc_review.layout import PROJECT_ROOT, HarnessLayout
from aidlc_review.loader import STAGE_KEYS, load_definition
from aidlc_review.overlay import validate_with_changes
from aidlc_review.yamledit import FrontmatterText, check_edit, scalar_list_block

REVIEW_STAGE = "code-review"
REVIEWED_STAGE = "code-generation"
DOWNSTREAM_STAGE = "build-and-test"
EMBEDDED_REVIEW_KEYS = ("reviewer", "reviewer_max_iterations", "review_class", "review_artifact")
PLAN_APPROVAL_ANCHORS = ("workspace_requires", "for_each", "mode")


@dataclass(frozen=True)
class FileChange:
    display: str  # path relative to the harness root
    before: str | None  # None: a new file
    after: str

    def diff(self) -> str:
        before = [] if self.before is None else self.before.splitlines(keepends=True)
        old = "/dev/null" if self.before is None else f"a/{self.display}"
        return "".join(
            difflib.unified_diff(
                before, self.after.splitlines(keepends=True), old, f"b/{self.display}"
            )
        )


@dataclass
class InstallPlan:
    root: Path
    changes: list[FileChange] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # harness files used as they are

    def diff(self) -> str:
        return "".join(change.diff() for change in self.changes)


def _read(path: Path) -> str:
    return path.read_bytes().decode("utf-8")


def _recognise(harness_dir: Path) -> HarnessLayout:
    layout = HarnessLayout.at(harness_dir)
    if layout.root == PROJECT_ROOT.resolve():
        raise InvalidInput(
            f"{layout.root}: this is the plugin itself; name an installed harness to install into"
        )
    construction = layout.root / "aidlc-common" / "stages" / "construction"
    for slug in (REVIEWED_STAGE, DOWNSTREAM_STAGE):
        if not layout.installed or not (construction / f"{slug}.md").is_file():
            raise InvalidInput(
                f"{layout.root}: not an installed AI-DLC harness "
                f"(expected aidlc-common/stages/construction/{slug}.md)"
            )
    return layout


def _stage_text(layout: HarnessLayout, slug: str) -> tuple[str, FrontmatterText]:
    """The stage file to edit, refused with its breadcrumbs unless it is a valid stage:
    the edits assume the shapes the schema guarantees (lists of items, mappings)."""
    display = f"aidlc-common/stages/construction/{slug}.md"
    problems: list[Diagnostic] = []
    if load_definition(layout.root / display, display, Stage, STAGE_KEYS, problems) is None:
        raise ValidationFailed(problems)
    return display, FrontmatterText.parse(_read(layout.root / display), display)


def edit_code_generation(text: FrontmatterText) -> None:
    """Drop the embedded reviewer; make plan approval mandatory."""
    expected = {k: v for k, v in text.plain().items() if k not in EMBEDDED_REVIEW_KEYS}
    expected["plan_approval"] = "required"
    for key in EMBEDDED_REVIEW_KEYS:
        text.remove_key(key)
    if text.plain().get("plan_approval") != "required":
        text.remove_key("plan_approval")
        text.insert_after(PLAN_APPROVAL_ANCHORS, ["plan_approval: required"])
    check_edit(text, expected)


def edit_build_and_test(text: FrontmatterText) -> None:
    """Run after code-review; read its findings when they exist."""
    data = text.plain()
    expected = dict(data)
    if REVIEW_STAGE not in data.get("requires_stage", []):
        text.append_item("requires_stage", [f"- {REVIEW_STAGE}"])
        expected["requires_stage"] = [*data.get("requires_stage", []), REVIEW_STAGE]
    consumed = [c.get("artifact") for c in data.get("consumes", [])]
    if "code-review-findings" not in consumed:
        text.append_item("consumes", ["- artifact: code-review-findings", "  required: false"])
        expected["consumes"] = [
            *data.get("consumes", []),
            {"artifact": "code-review-findings", "required": False},
        ]
    check_edit(text, expected)


def review_stage_text(
    plugin: HarnessLayout, harness_scopes: list[str], chosen: list[str] | None = None
) -> str:
    """The plugin's code-review stage, executing only where the harness runs code-generation.

    ``chosen``: the scopes of a code-review stage installed earlier. A lead may have
    changed them with ``scope add|remove``; a re-install keeps that choice.
    """
    display = f"{plugin.display(plugin.stages_dir)}/construction/{REVIEW_STAGE}.md"
    text = FrontmatterText.parse(_read(plugin.root / display), display)
    data = text.plain()
    wanted = data.get("scopes", []) if chosen is None else chosen
    scopes = [s for s in wanted if s in harness_scopes]
    text.replace_key("scopes", scalar_list_block("scopes", scopes, text.item_indent("scopes")))
    check_edit(text, {**data, "scopes": scopes})
    return text.text


def _installed_scopes(layout: HarnessLayout) -> list[str] | None:
    """The ``scopes:`` of a code-review stage already in the harness (None when there is none)."""
    display = f"aidlc-common/stages/construction/{REVIEW_STAGE}.md"
    if not (layout.root / display).is_file():
        return None
    problems: list[Diagnostic] = []
    loaded = load_definition(layout.root / display, display, Stage, STAGE_KEYS, problems)
    if loaded is None:
        raise ValidationFailed(problems)
    return list(loaded[0].scopes)


def _plugin_files(
    plugin: HarnessLayout, harness: HarnessLayout, review: dict
) -> tuple[dict[str, str], list[str]]:
    """Files to copy (display -> text): owned ones always, shared ones only when missing."""
    owned: list[str] = [f"agents/{review['lead_agent']}.md"]
    knowledge = plugin.root / "knowledge" / review["lead_agent"]
    owned += sorted(plugin.display(p) for p in knowledge.rglob("*") if p.is_file())
    shared = [
        f"agents/{a}.md"
        for a in [review.get("repair_agent"), *review.get("support_agents", [])]
        if a
    ]
    shared += [f"sensors/aidlc-{sensor}.md" for sensor in review.get("sensors", [])]
    files = {display: _read(plugin.root / display) for display in owned}
    kept = []
    for display in dict.fromkeys(shared):
        if (harness.root / display).is_file():
            kept.append(display)
        elif not (plugin.root / display).is_file():
            raise InvalidInput(f"{plugin.root / display}: the plugin names it but does not ship it")
        else:
            files[display] = _read(plugin.root / display)
    return files, kept


def plan_install(harness_dir: Path, plugin_dir: Path | None = None) -> InstallPlan:
    """Work out every file change; validate the result; write nothing."""
    layout = _recognise(harness_dir)
    plugin = HarnessLayout.at(plugin_dir)
    generated: dict[str, str] = {}
    gen_display, gen_text = _stage_text(layout, REVIEWED_STAGE)
    review_text = review_stage_text(
        plugin, list(gen_text.plain().get("scopes") or []), _installed_scopes(layout)
    )
    edit_code_generation(gen_text)
    generated[gen_display] = gen_text.text
    bt_display, bt_text = _stage_text(layout, DOWNSTREAM_STAGE)
    edit_build_and_test(bt_text)
    generated[bt_display] = bt_text.text
    generated[f"aidlc-common/stages/construction/{REVIEW_STAGE}.md"] = review_text
    copies, kept = _plugin_files(
        plugin, layout, FrontmatterText.parse(review_text, REVIEW_STAGE).plain()
    )
    generated.update(copies)
    plan = InstallPlan(layout.root, kept=kept)
    for display in sorted(generated):
        path = layout.root / display
        before = _read(path) if path.is_file() else None
        if before != generated[display]:
            plan.changes.append(FileChange(display, before, generated[display]))
    if plan.changes:
        validate_with_changes(layout, {c.display: c.after for c in plan.changes})
    return plan


def apply_install(plan: InstallPlan) -> None:
    for change in plan.changes:
        write_atomic(plan.root / change.display, change.after)
