"""The agent definition (``agents/<slug>.md``): only what the compiler needs is checked."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from aidlc_review.harness.definitions.base import KEBAB, Definition


class Agent(Definition):
    name: str = Field(pattern=KEBAB)
    display_name: str | None = None
    description: str
    examples: list[str] | None = None
    disallowedTools: str | list[str] | None = None  # noqa: N815
    tools: str | list[str] | None = None
    model: str | None = None
    effort: str | None = None
    color: str | None = None
    # Claude Code's cap on a subagent's turns (engine 2.6's reviewers carry it)
    maxTurns: int | None = Field(default=None, ge=1)  # noqa: N815
    metadata: dict[str, Any] | None = None
