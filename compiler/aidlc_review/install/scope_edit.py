"""``scope add|remove STAGE SCOPE``: edit one stage's ``scopes:`` list in place.

The edit touches only the lines of that list; the result is validated as a
whole harness (so code-review cannot be added where code-generation does not
run) before anything is written, and the caller recompiles afterwards.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from aidlc_review.compile.build import load_valid
from aidlc_review.compile.overlay import validate_with_changes
from aidlc_review.errors import InvalidInput
from aidlc_review.fsio import write_atomic
from aidlc_review.harness.breadcrumbs import did_you_mean
from aidlc_review.harness.layout import HarnessLayout
from aidlc_review.harness.yamledit import FrontmatterText, check_edit

ADD = "add"
REMOVE = "remove"


@dataclass(frozen=True)
class ScopeEdit:
    stage: str
    scope: str
    action: str
    path: Path
    display: str
    changed: bool
    message: str


def _stage_file(layout: HarnessLayout, slug: str) -> tuple[Path, str]:
    files = {path.stem: (path, display) for path, display in layout.stage_files()}
    if slug not in files:
        raise InvalidInput(f"unknown stage {slug!r}" + did_you_mean(slug, files))
    return files[slug]


def _edited(text: FrontmatterText, scopes: list[str], scope: str, action: str) -> bool:
    """Apply the edit to ``text``; False when there is nothing to do."""
    if action == ADD:
        if scope in scopes:
            return False
        text.append_item("scopes", [f"- {scope}"])
        return True
    if scope not in scopes:
        return False
    text.remove_item("scopes", scopes.index(scope))
    return True


def edit_stage_scopes(layout: HarnessLayout, slug: str, scope: str, action: str) -> ScopeEdit:
    """Add ``scope`` to (or remove it from) stage ``slug``; validate, then write atomically."""
    harness, _, _ = load_valid(layout)
    path, display = _stage_file(layout, slug)
    known = {s.name for s in harness.scopes}
    if action == ADD and scope not in known:
        raise InvalidInput(
            f"no scope file scopes/aidlc-{scope}.md for scope {scope!r}"
            + did_you_mean(scope, known)
        )
    text = FrontmatterText.parse(path.read_bytes().decode("utf-8"), display)
    before = text.plain()
    scopes = list(before.get("scopes") or [])
    if not _edited(text, scopes, scope, action):
        state = "already executes" if action == ADD else "does not execute"
        return ScopeEdit(
            slug,
            scope,
            action,
            path,
            display,
            False,
            f"{slug} {state} in scope {scope}; nothing to change",
        )
    expected = dict(before)
    expected["scopes"] = scopes + [scope] if action == ADD else [s for s in scopes if s != scope]
    check_edit(text, expected)
    validate_with_changes(layout, {display: text.text})
    write_atomic(path, text.text)
    verb = "now executes in" if action == ADD else "no longer executes in"
    return ScopeEdit(
        slug, scope, action, path, display, True, f"{slug} {verb} scope {scope} ({display})"
    )
