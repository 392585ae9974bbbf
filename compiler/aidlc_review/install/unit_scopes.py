"""The scopes code-review runs in: with units, without them, and the ones it stays out of.

Upstream iterates a per-unit construction stage over the units in
``unit-of-work-dependency.md`` (``resolveBoltBatches`` in ``aidlc-orchestrate.ts``). In a
scope where no stage that writes it executes (bugfix, refactor, security-patch), there is no
unit set: upstream runs each per-unit stage once. Code review runs there once too, at the
stage level (DESIGN.md §8, "Scopes without units"): code generation's manifest is written
without a unit, beside its ``produces``, and the review's record goes where upstream looks for
code-review's (``review/inputs/paths.py`` resolves 2.5's literal ``{unit-name}`` folder).

The scopes the feature request keeps code review out of (poc, express: the documented
no-review paths) are those the plugin's own code-review does not list; a lead's
``scope add`` of one is refused with the reason.
"""

from __future__ import annotations

from aidlc_review.errors import InvalidInput
from aidlc_review.harness.frontmatter import read_document
from aidlc_review.harness.layout import HarnessLayout

REVIEW = "code-review"


def reviewed_scopes() -> list[str]:
    """The scopes the plugin's own code-review lists: the feature request's."""
    plugin = HarnessLayout.at(None)
    path = plugin.stages_dir / "construction" / f"{REVIEW}.md"
    return list(read_document(path, plugin.display(path)).data.get("scopes") or [])


def refuse_unreviewed_scope(stage: str, scope: str) -> None:
    """Refuse to make code-review execute in a scope the feature request keeps it out of."""
    listed = reviewed_scopes()
    if stage != REVIEW or scope in listed:
        return
    raise InvalidInput(
        f"{stage} stays out of scope {scope}: the feature request names code review for "
        f"{', '.join(listed)} only, and {scope} is one of its documented no-review paths"
    )
