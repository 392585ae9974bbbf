"""Display names for stages that do not set ``name:``.

Title case of the slug, with acronyms upper-cased and short joining words kept
lower-case. Upstream's stock stages carry a few names that no rule derives
(``feasibility`` is shown as "Feasibility & Constraints"); the reference
compiler knows them, so this one does too, for byte-compatible output.
"""

from __future__ import annotations

ACRONYMS = frozenset(
    {"ci", "cd", "nfr", "api", "ui", "ux", "aws", "iac", "sbom", "e2e", "qa", "pr"}
)
LOWER_WORDS = frozenset({"and", "or", "of", "the", "for", "to", "in", "on", "a"})

UPSTREAM_NAMES = {
    "approval-handoff": "Approval & Handoff",
    "feasibility": "Feasibility & Constraints",
    "intent-capture": "Intent Capture & Framing",
    "state-init": "State Initialization",
    "feedback-optimization": "Feedback & Optimization",
}


def display_name(slug: str, given: str | None = None) -> str:
    if given:
        return given
    if slug in UPSTREAM_NAMES:
        return UPSTREAM_NAMES[slug]
    words = []
    for index, word in enumerate(slug.split("-")):
        if word in ACRONYMS:
            words.append(word.upper())
        elif index > 0 and word in LOWER_WORDS:
            words.append(word)
        else:
            words.append(word.capitalize())
    return " ".join(words)
