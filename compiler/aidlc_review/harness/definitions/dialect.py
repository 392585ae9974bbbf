"""The dialect a harness's files are written in: the values its engine's own schema accepts.

Upstream's engine changes the vocabulary of the files it owns between releases (2.6 made a
stage's ``summary_confirmation`` ``required|if-present`` where this plugin's source form had a
boolean, named its review classes ``adversarial|advisory`` and let a scope say
``review_cap: none``). A harness run by an engine is judged in that engine's dialect, read
from the engine itself (``aidlc_review.harness.engine``); a harness without one (this
plugin's own tree, an engine's data alone) in the plugin's source dialect, ``SOURCE``
(DESIGN §3.2). The plugin's own extension keys (``PLUGIN_KEYS``) are judged strictly by the
plugin whatever the engine.

Validators ask for the dialect through pydantic's validation context
(``model_validate(data, context=dialect.context())``); without one, ``SOURCE``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationInfo

CONTEXT_KEY = "dialect"
# Keys only this plugin gives a stage (DESIGN §3.2 "Extensions"): no engine's schema knows
# them, and the plugin validates them the same in every harness.
PLUGIN_KEYS = frozenset({"repair_agent", "reviews", "max_passes", "plan_approval"})
# The plugin's review ladder, weakest first: a plan speaks these words whatever the engine.
NO_REVIEW, ADVISORY, BLOCKING = "none", "advisory", "blocking"
PLUGIN_LADDER = (NO_REVIEW, ADVISORY, BLOCKING)


@dataclass(frozen=True)
class Dialect:
    """What one engine (or the plugin's source form) accepts where engines differ.

    A vocabulary of ``None`` means the engine's files exist but do not declare it in a form
    read here: the value is left to the engine's own compile (any scalar is accepted).
    """

    engine: str | None  # the engine's AIDLC_VERSION ("unknown" unreadable); None: no engine
    # every key the engine's stage schema accepts (None: not read; no key check)
    stage_keys: frozenset[str] | None
    stage_review_classes: tuple[str, ...] | None
    summary_confirmations: tuple[Any, ...] | None
    review_caps: tuple[str, ...] | None
    # review classes weakest first; rung 0 runs no review (a scope's cap may say it)
    review_ladder: tuple[str, ...]
    # the engine's compiled node carries a reviewer's class (the strongest when none is given)
    node_review_class: bool

    def context(self) -> dict[str, Any]:
        return {CONTEXT_KEY: self}

    @property
    def name(self) -> str:
        return f"engine {self.engine}" if self.engine else "the plugin's source form"

    @property
    def strongest_class(self) -> str:
        return self.review_ladder[-1]

    def unknown_stage_key(self, key: str) -> bool:
        """A key the engine's stage schema does not list (the plugin's own keys excepted)."""
        return self.stage_keys is not None and key not in self.stage_keys | PLUGIN_KEYS

    def rung(self, review_class: str) -> int:
        """How strong a class is on the plugin's ladder (0 none, 1 advisory, 2 blocking); a
        word the dialect does not rank is taken at full strength."""
        if review_class in self.review_ladder:
            return min(self.review_ladder.index(review_class), len(PLUGIN_LADDER) - 1)
        return len(PLUGIN_LADDER) - 1


SOURCE = Dialect(
    engine=None,
    stage_keys=None,
    stage_review_classes=(BLOCKING, ADVISORY),
    summary_confirmations=(True, False),
    review_caps=(BLOCKING, ADVISORY),
    review_ladder=PLUGIN_LADDER,
    node_review_class=False,
)


def dialect_of(info: ValidationInfo) -> Dialect:
    context = info.context
    found = context.get(CONTEXT_KEY) if isinstance(context, dict) else None
    return found if isinstance(found, Dialect) else SOURCE


def one_of(value: Any, allowed: tuple[Any, ...] | None, dialect: Dialect) -> Any:
    """``value`` when the dialect allows it; else a ValueError in the breadcrumb wording."""
    if allowed is None:
        if isinstance(value, (str, bool, int)):
            return value
        raise ValueError(f"must be a scalar, got {_show(value)}")
    if value in allowed and type(value) in {type(a) for a in allowed}:
        return value
    if all(isinstance(a, bool) for a in allowed):
        raise ValueError(f"must be a boolean (true or false), got {_show(value)}")
    words = ", ".join(str(a) for a in allowed)
    where = f" ({dialect.name})" if dialect.engine else ""
    raise ValueError(f"must be one of {words}{where}; got {_show(value)}")


def _show(value: Any) -> str:
    """As ``typed_load.show`` quotes a value (definitions import nothing of ours)."""
    if isinstance(value, (dict, list)):
        return "a mapping" if isinstance(value, dict) else "a list"
    return json.dumps(value, ensure_ascii=False, default=str)
