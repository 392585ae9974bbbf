"""Scopes where upstream gives code-review no unit to review.

Upstream iterates a per-unit construction stage over the units in
``unit-of-work-dependency.md`` (``resolveBoltBatches`` in ``aidlc-orchestrate.ts``). In a
scope where no stage that writes it executes (poc, for one), there is no unit set: upstream
emits each per-unit stage once, with the literal placeholder ``{unit-name}`` in its record
paths (``construction/{unit-name}/code-review/code-review.md``), while this plugin's
stage-level review writes ``construction/code-review/``. That stage's coverage check
could never pass, so a lead's ``scope add`` of such a scope is refused with the reason.
"""

from __future__ import annotations

from aidlc_review.compile.build import load_valid
from aidlc_review.errors import InvalidInput
from aidlc_review.harness.layout import HarnessLayout

UNIT_SET = "unit-of-work-dependency"


def unit_less(layout: HarnessLayout, scopes: list[str]) -> list[str]:
    """The ``scopes`` where no stage that writes the unit set executes."""
    _, graph, _ = load_valid(layout)
    producers = graph.producers_of(UNIT_SET)
    return [s for s in scopes if not any(graph.executes(slug, s) for slug in producers)]


def left_out_note(stage: str, scopes: list[str]) -> str:
    """What install says about the default scopes it leaves ``stage`` out of."""
    return (
        f"{stage} is not added to {', '.join(scopes)}: no stage there writes the unit set "
        f"({UNIT_SET}), so upstream would run {stage} once under the literal placeholder "
        f"construction/{{unit-name}}/{stage}/, where no unit's review is written"
    )


def refuse_unit_less(layout: HarnessLayout, stage: str, scope: str) -> None:
    """Refuse to make ``stage`` execute in ``scope`` when the scope has no unit set."""
    if not unit_less(layout, [scope]):
        return
    _, graph, _ = load_valid(layout)
    producers = graph.producers_of(UNIT_SET)
    writers = " or ".join(producers) or "no stage of this harness"
    first = producers[0] if producers else "a stage that writes it"
    raise InvalidInput(
        f"{stage} cannot execute in scope {scope}: no stage there writes the unit set "
        f"({UNIT_SET}, by {writers}), so upstream would run {stage} once with the literal "
        f"placeholder in its path (construction/{{unit-name}}/{stage}/{stage}.md), where "
        f"this plugin's stage-level review does not write (construction/{stage}/), and the "
        f"stage could never be approved. Make {first} execute in {scope} first, "
        f"or keep {stage} out of it"
    )
