"""What the engine present in a project can do, read from its own tools (feature detection).

No table of versions: each feature is read where the engine spells it, so an engine this
plugin has not seen is asked what it offers. The dialect of its files (stage keys, review
vocabulary, ``AIDLC_VERSION``) is read by ``harness.engine``; what it *does* is read here:

- ``birth``: the utility verb that starts an intent, ``intent-create`` (2.6) or
  ``intent-birth`` (2.5), the one ``aidlc-utility.ts`` dispatches on;
- ``gate_deferral``: whether its graph compiles ``completion_gate`` (the proposed upstream
  patch, ``docs/upstream-gate-deferral.patch``, or an engine that took it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

UTILITY = "tools/aidlc-utility.ts"
GRAPH = "tools/aidlc-graph.ts"
BIRTH_VERBS = ("intent-create", "intent-birth")  # newest first


@dataclass(frozen=True)
class EngineFeatures:
    birth: str
    gate_deferral: bool

    @classmethod
    def read(cls, harness: Path) -> EngineFeatures:
        utility = _read(harness / UTILITY)
        return cls(
            birth=next(
                (verb for verb in BIRTH_VERBS if re.search(rf'case "{verb}"', utility)),
                BIRTH_VERBS[0],
            ),
            gate_deferral='"completion_gate"' in _read(harness / GRAPH),
        )

    def birth_args(self, scope: str, arguments: str, label: str) -> list[str]:
        """``aidlc-utility.ts`` arguments that start an intent of ``scope``."""
        return [self.birth, "--scope", scope, "--arguments", arguments, "--label", label]


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""
