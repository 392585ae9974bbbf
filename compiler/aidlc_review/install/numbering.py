"""Stage numbers for the installed graph.

Upstream's compiler keeps every number already in ``stage-graph.json`` and gives a
new stage the next free index of its phase, and every ``requires_stage`` edge must
point to a lower number. Left alone, code-review would land after build-and-test;
so install pins it directly after code-generation and moves the later stages of
the phase one index up. The ledger keeps what moved, so uninstall can put it back.
"""

from __future__ import annotations


def _split(number: str) -> tuple[int, int]:
    prefix, index = number.split(".")
    return int(prefix), int(index)


def insert_after(
    pinned: dict[str, str], anchor: str, slug: str
) -> tuple[dict[str, str], dict[str, str]]:
    """Pins with ``slug`` right after ``anchor``, and the displaced stages' old numbers."""
    pins = {s: n for s, n in pinned.items() if s != slug}
    prefix, index = _split(pins[anchor])
    displaced: dict[str, str] = {}
    for other, number in sorted(pins.items()):
        p, i = _split(number)
        if p == prefix and i > index:
            displaced[other] = number
            pins[other] = f"{p}.{i + 1}"
    pins[slug] = f"{prefix}.{index + 1}"
    return pins, displaced


def remove(pinned: dict[str, str], slug: str, displaced: dict[str, str]) -> dict[str, str]:
    """Pins without ``slug``, with the displaced stages' numbers restored."""
    pins = {s: n for s, n in pinned.items() if s != slug}
    pins.update({s: n for s, n in displaced.items() if s in pins})
    return pins
