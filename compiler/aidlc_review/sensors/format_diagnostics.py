"""Diagnostics with an error code, one parser per format (STYLE.md: know formats, not tools).

Two shapes a checker prints its diagnostics in, each read into ``Hit``s (path, line, rule,
message, level) with the level as the checker says it (``error``, ``warning``, ``note``):

- ``coded-diagnostics``: one line per diagnostic, ``path:line[:col]: level: message  [code]``
  (the GNU form with the error code last, two spaces before it); a note right after an
  error on the same line is that error's hint and is not a diagnostic of its own;
- ``diagnostics-json-lines``: one JSON object per line with ``file``, ``line``,
  ``severity``, ``message`` and, when known, ``code`` and ``hint`` (what the text form
  prints as a note under the error).

The rule of a hit is the code as printed (no prefix): the runner that reads the report
decides how its findings name their rules. A report that is not in its format raises
``SensorError``: could not verify, never a pass.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aidlc_review.sensors.context import SensorError
from aidlc_review.sensors.formats import Hit

_CODED_LINE = re.compile(
    r"^(?P<file>[^:\n]+):(?P<line>-?\d+)(?::\d+)?: (?P<level>error|note|warning): "
    r"(?P<message>.*?)(?:  \[(?P<code>[a-z0-9-]+)\])?$"
)


@dataclass(frozen=True)
class Diagnostic(Hit):
    hint: str | None = None  # the checker's advice on the error, apart from the message

    @property
    def said(self) -> str:
        """The message with its hint, as the checker prints them, on one line."""
        return f"{self.message} ({self.hint})" if self.hint else self.message


def coded_diagnostics(text: str) -> list[Diagnostic]:
    """``path:line[:col]: level: message  [code]`` lines; other lines (a summary, a
    traceback's context) are not diagnostics and are passed over."""
    hits: list[Diagnostic] = []
    for line in text.splitlines():
        found = _CODED_LINE.match(line)
        if not found:
            continue
        hit = Diagnostic(path=found["file"], line=int(found["line"]), rule=found["code"],
                         message=found["message"], level=found["level"])  # fmt: skip
        previous = hits[-1] if hits else None
        if (
            hit.level == "note"
            and previous is not None
            and previous.level == "error"
            and (previous.path, previous.line) == (hit.path, hit.line)
        ):
            continue  # the error's hint
        hits.append(hit)
    return hits


def diagnostics_json_lines(text: str) -> list[Diagnostic]:
    """One JSON object per non-blank line; any other line is an unreadable report."""
    hits = []
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError:
            raise SensorError(f"unreadable report (expected JSON lines): {line[:200]}") from None
        if not isinstance(item, dict) or "file" not in item or "message" not in item:
            raise SensorError(f"unreadable report (expected a diagnostic): {line[:200]}")
        hits.append(_json_hit(item))
    return hits


def _json_hit(item: dict[str, Any]) -> Diagnostic:
    hint = item.get("hint")
    line = item.get("line")
    code = item.get("code")
    return Diagnostic(
        path=str(item["file"]),
        line=line if isinstance(line, int) else None,
        rule=code if isinstance(code, str) and code else None,
        message=str(item["message"]),
        level=str(item.get("severity", "error")),
        hint=" ".join(hint.split()) if isinstance(hint, str) and hint.strip() else None,
    )


DIAGNOSTIC_FORMATS: dict[str, Callable[[str], list[Diagnostic]]] = {
    "coded-diagnostics": coded_diagnostics,
    "diagnostics-json-lines": diagnostics_json_lines,
}
