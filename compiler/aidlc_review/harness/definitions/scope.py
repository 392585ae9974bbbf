"""The scope definition (``scopes/aidlc-<name>.md``)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, ValidationInfo, field_validator

from aidlc_review.harness.definitions.base import KEBAB, Definition
from aidlc_review.harness.definitions.dialect import dialect_of, one_of


class Scope(Definition):
    name: str = Field(pattern=KEBAB)
    depth: Literal["Minimal", "Standard", "Comprehensive"]
    keywords: list[str] = []
    description: str
    skeleton: Literal["on", "off"] | bool | None = None
    runner: bool | None = None
    testStrategy: Literal["Minimal", "Standard", "Comprehensive"] | None = None  # noqa: N815
    # the harness's dialect says which caps there are (engine 2.6: adversarial, advisory,
    # none; the plugin's source form: blocking, advisory)
    review_cap: str | None = None

    @field_validator("review_cap")
    @classmethod
    def _cap_of_the_dialect(cls, value: str, info: ValidationInfo) -> str:
        dialect = dialect_of(info)
        return str(one_of(value, dialect.review_caps, dialect))
