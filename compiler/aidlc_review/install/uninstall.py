"""``uninstall --harness DIR``: take out exactly what the ledger says install put in.

An added file a user edited since is never deleted: uninstall refuses and names
it. The inserted blocks come out of code-generation and build-and-test, the
stage numbers install moved go back, and the compiled graph is rebuilt with
them, so with upstream's generators re-run the project is byte for byte as
before the install. While any intent is at code-review (its current stage, or begun
and not settled) uninstall refuses and names the intent: upstream's engine could not
route it any more.
"""

from __future__ import annotations

from pathlib import Path

from aidlc_review.compile.build import SCOPE_GRID, STAGE_GRAPH, pinned_numbers
from aidlc_review.errors import InvalidInput
from aidlc_review.harness.layout import HarnessLayout
from aidlc_review.harness.review_plan import PLAN_PATH
from aidlc_review.install import numbering
from aidlc_review.install.ledger import read_ledger, sha256_text
from aidlc_review.install.plan import (
    LEDGER,
    REVIEW,
    FileChange,
    InstallPlan,
    _read,
    pristine_texts,
    recognise,
)
from aidlc_review.install.trial import compile_trial, harness_dir_name


class EditedSinceInstall(InvalidInput):
    """An added file no longer has the bytes install wrote."""

    exit_code = 1


class ReviewInUse(InvalidInput):
    """An intent is at code-review: taking the stage out would strand it."""

    exit_code = 1


def plan_uninstall(harness_dir: Path) -> InstallPlan:
    layout = recognise(harness_dir)
    ledger = read_ledger(layout.root)
    if ledger is None:
        raise InvalidInput(
            f"{layout.root}: the code-review plugin is not installed here (no {LEDGER})"
        )
    edited = [
        a.path
        for a in ledger.added
        if (layout.root / a.path).is_file() and sha256_text(_read(layout.root / a.path)) != a.sha256
    ]
    _refuse_while_reviewing(layout.root.parent)
    if edited:
        raise EditedSinceInstall(
            "refusing to uninstall: edited since install (restore or remove them by hand): "
            + ", ".join(str(layout.root / p) for p in edited)
        )
    core = pristine_texts(layout, ledger, strict=True)
    gone = {a.path for a in ledger.added} | {LEDGER, PLAN_PATH}
    pins = numbering.remove(
        pinned_numbers(layout.data_dir / STAGE_GRAPH), REVIEW, ledger.displaced_numbers
    )
    compiled = _compile_without(layout, gone, core, pins)
    plan = InstallPlan(layout.root)
    outputs = {
        **core,
        f"tools/data/{STAGE_GRAPH}": compiled[STAGE_GRAPH],
        f"tools/data/{SCOPE_GRID}": compiled[SCOPE_GRID],
    }
    for display, text in sorted(outputs.items()):
        before = _read(layout.root / display)
        if before != text:
            plan.changes.append(FileChange(display, before, text))
    for display in sorted(gone):
        if (layout.root / display).is_file():
            plan.changes.append(FileChange(display, _read(layout.root / display), None))
    return plan


def _refuse_while_reviewing(project: Path) -> None:
    """Upstream's ``next`` cannot route an intent whose stage is gone from the graph: while
    any intent is at code-review, uninstalling would leave it stuck there."""
    from aidlc_review.upstream.intents import project_intents

    held = [(s, why) for s in project_intents(project) if (why := s.holding(REVIEW))]
    if held:
        raise ReviewInUse(
            "refusing to uninstall: "
            + "; ".join(f"intent {s.name} has {REVIEW} {why} ({s.path})" for s, why in held)
            + f". Upstream's `next` would then stop on a stage its graph no longer has. Finish "
            f"{REVIEW} in that intent first (its gate approved), then uninstall"
        )


def _compile_without(
    layout: HarnessLayout, gone: set[str], core: dict[str, str], pins: dict[str, str]
) -> dict[str, str]:
    """Compile the harness minus the added files, with the core stages restored."""
    kept = HarnessLayout(layout.root, layout.stages_dir)
    return compile_trial(_Without(kept, gone), core, pins, harness_dir_name(layout.root))


class _Without(HarnessLayout):
    """The harness's layout with some definition files left out."""

    __slots__ = ("gone",)

    def __init__(self, layout: HarnessLayout, gone: set[str]):
        super().__init__(layout.root, layout.stages_dir)
        self.gone = gone

    def input_files(self) -> list[Path]:
        return [p for p in super().input_files() if self.display(p) not in self.gone]
