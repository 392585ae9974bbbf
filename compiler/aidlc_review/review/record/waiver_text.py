"""A waiver's text is checked before it is kept: it is copied to every output there is.

``--reason`` and ``--by`` are written verbatim to the findings document, the report, SARIF,
the summary SARIF and the terminal, so neither may hold a secret (plain or encoded, found
by ``sensors.redact`` as in agent text), a newline or another control character (a forged
line in the report, an ANSI escape rewriting the terminal), or more than a line of a report
holds: ``REASON_CHARS`` is a sentence or two and a ticket's address, ``BY_CHARS`` a name and
an email address with room to spare. A refusal names the option and what is wrong (for a
secret, its type and hash marker), never the value; every problem is named at once.
"""

from __future__ import annotations

import unicodedata

from aidlc_review.errors import InvalidInput
from aidlc_review.sensors.redact import find_secrets

REASON_CHARS = 500
BY_CHARS = 200
# control, format (bidi overrides, zero-width), surrogate, line and paragraph separators
_UNSHOWN = {"Cc", "Cf", "Cs", "Zl", "Zp"}
_WRITTEN = "a waiver's text is written to the findings, the report and SARIF"
# each option: its name, its cap, what to say instead of too much, and instead of a secret
_REASON = ("--reason", REASON_CHARS, "say why in a sentence or two", "say why without it")
_BY = ("--by", BY_CHARS, "name who accepts it", "name who accepts it without it")


def check_waiver_text(reason: str, by: str) -> None:
    """Raise ``InvalidInput`` (exit 2) naming every problem of ``--reason`` and ``--by``."""
    problems = [*_problems(reason, *_REASON), *_problems(by, *_BY)]
    if not reason.strip():
        problems.append("--reason: say why the finding is accepted")
    if problems:
        raise InvalidInput("\n".join(sorted(problems)))


def _problems(text: str, option: str, most: int, shorter: str, instead: str) -> list[str]:
    if len(text) > most:  # checked no further: refused anyway, and never shown
        return [f"{option}: {len(text)} characters, more than the {most} allowed: {shorter}"]
    problems = []
    unshown = [(at, c) for at, c in enumerate(text, 1) if unicodedata.category(c) in _UNSHOWN]
    if unshown:
        at, char = unshown[0]
        problems.append(
            f"{option}: holds a control character (U+{ord(char):04X} at character {at}); "
            "a waiver's text is one line of plain text"
        )
    secrets = find_secrets(text)
    if secrets is None:
        problems.append(f"{option}: could not be checked for secrets in time: {shorter}")
    elif secrets:
        markers = list(dict.fromkeys(q.marker for q in secrets))
        held = f"holds {'a secret' if len(markers) == 1 else 'secrets'} ({', '.join(markers)})"
        problems.append(f"{option}: {held}; {_WRITTEN}: {instead}")
    return problems
