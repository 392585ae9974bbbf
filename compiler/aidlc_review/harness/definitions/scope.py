"""The scope definition (``scopes/aidlc-<name>.md``)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from aidlc_review.harness.definitions.base import KEBAB, Definition


class Scope(Definition):
    name: str = Field(pattern=KEBAB)
    depth: Literal["Minimal", "Standard", "Comprehensive"]
    keywords: list[str] = []
    description: str
    skeleton: Literal["on", "off"] | bool | None = None
    runner: bool | None = None
    testStrategy: Literal["Minimal", "Standard", "Comprehensive"] | None = None  # noqa: N815
    review_cap: Literal["blocking", "advisory"] | None = None
