"""The stage definition: upstream's fields plus this plugin's review extensions."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator

from aidlc_review.harness.definitions.base import KEBAB, Definition
from aidlc_review.harness.definitions.dialect import dialect_of, one_of

PHASES = ("initialization", "ideation", "inception", "construction", "operation")
Phase = Literal["initialization", "ideation", "inception", "construction", "operation"]
Mode = Literal["inline", "subagent", "pipeline", "mob", "agent-team"]
# A chain with no links and a room with one occupant are authoring errors (upstream's
# ENSEMBLE_MODES in aidlc-stage-schema.ts rejects them the same way).
ENSEMBLE_MODES = ("pipeline", "mob")
RESERVED_KEYS = ("on_failure", "blocks_on", "timeout", "retry")
CONSTRUCTION_MODES = ("gated", "autonomous")
DEFAULT_REVIEWER_ITERATIONS = 2
UNIT_KINDS = ("service", "spec", "ui", "packaging", "library")  # upstream's aidlc-lib.ts
CORE_PLUGIN = "aidlc"

ArtifactName = Field(pattern=KEBAB)


class Consume(Definition):
    artifact: str = Field(pattern=KEBAB)
    required: bool
    conditional_on: Literal["brownfield", "greenfield"] | None = None


class MaxPasses(Definition):
    """Review passes per construction mode; repairs = passes - 1."""

    gated: int = Field(ge=1, le=10)
    autonomous: int = Field(ge=1, le=10)


class When(Definition):
    """Upstream's activation predicate: a map with its one key ``producer-in-plan``."""

    producer_in_plan: str = Field(alias="producer-in-plan", min_length=1)


class Stage(Definition):
    slug: str = Field(pattern=KEBAB)
    name: str | None = None
    number: str | None = Field(default=None, pattern=r"^[0-9]+\.[0-9]+$")
    phase: Phase
    execution: Literal["ALWAYS", "CONDITIONAL"]
    condition: str
    lead_agent: str
    support_agents: list[str]
    mode: Mode
    for_each: str | None = Field(default=None, pattern=KEBAB)
    workspace_requires: bool | None = None
    produces: list[str]
    optional_produces: list[Annotated[str, Field(pattern=KEBAB)]] | None = None
    produces_kinds: dict[str, list[str]] | None = None
    consumes: list[Consume]
    requires_stage: list[str]
    sensors: list[str] = []
    scopes: list[str] = []
    reviewer: str | None = None
    # No upper bound: upstream's schema takes any positive integer.
    reviewer_max_iterations: int | None = Field(default=None, ge=1)
    # Engines differ here: the harness's dialect says which values it takes (the plugin's
    # source form: blocking|advisory and a boolean; engine 2.6: adversarial|advisory and
    # required|if-present).
    review_class: str | None = None
    review_artifact: str | None = None
    summary_confirmation: bool | str | None = None
    repair_agent: str | None = None
    reviews: str | None = Field(default=None, pattern=KEBAB)
    max_passes: MaxPasses | None = None
    plan_approval: Literal["required"] | None = None
    plugin: str | None = None
    when: When | None = None
    ars: bool | None = None
    required_sections: list[str] | None = None
    inputs: str
    outputs: str

    @model_validator(mode="before")
    @classmethod
    def _reject_reserved(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for key in RESERVED_KEYS:
                if key in data:
                    raise ValueError(f"reserved:{key}")
        return data

    @field_validator("review_class")
    @classmethod
    def _review_class_of_the_dialect(cls, value: str, info: ValidationInfo) -> str:
        dialect = dialect_of(info)
        return str(one_of(value, dialect.stage_review_classes, dialect))

    @field_validator("summary_confirmation")
    @classmethod
    def _summary_confirmation_of_the_dialect(
        cls, value: bool | str, info: ValidationInfo
    ) -> bool | str:
        dialect = dialect_of(info)
        return one_of(value, dialect.summary_confirmations, dialect)  # type: ignore[no-any-return]

    @model_validator(mode="after")
    def _check_review_fields(self) -> Stage:
        if self.mode == "agent-team":
            raise ValueError("mode:mode agent-team is reserved and not yet implemented")
        if self.mode in ENSEMBLE_MODES and not self.support_agents:
            raise ValueError(f"mode:mode {self.mode} requires a non-empty support_agents")
        if self.reviewer_max_iterations is not None and self.reviewer is None:
            raise ValueError("reviewer_max_iterations:needs a reviewer")
        if self.review_class is not None and self.reviewer is None:
            raise ValueError("review_class:needs a reviewer")
        if self.repair_agent is not None and not self.has_review_loop:
            raise ValueError(
                "repair_agent:only valid on a stage with a review loop (reviewer or reviews)"
            )
        if self.max_passes is not None and not self.has_review_loop:
            raise ValueError(
                "max_passes:only valid on a stage with a review loop (reviewer or reviews)"
            )
        if self.reviews is not None and self.reviews == self.slug:
            raise ValueError("reviews:a stage cannot review itself")
        self._check_plugin()
        self._check_produces_kinds()
        return self

    def _check_plugin(self) -> None:
        """Upstream's ownership rules: core omits the key, a plugin prefixes its slugs."""
        if self.plugin is None:
            return
        if self.plugin == CORE_PLUGIN or self.plugin.startswith(f"{CORE_PLUGIN}-"):
            raise ValueError(
                f"plugin:{self.plugin!r} is core's namespace; omit plugin for core stages"
            )
        if not self.slug.startswith(f"{self.plugin}-"):
            raise ValueError(
                f"plugin:stages of plugin {self.plugin!r} must have slugs starting with "
                f"'{self.plugin}-', got {self.slug!r}"
            )

    def _check_produces_kinds(self) -> None:
        declared = set(self.produces) | set(self.optional_produces or [])
        for artifact, kinds in (self.produces_kinds or {}).items():
            if artifact not in declared:
                raise ValueError(f"produces_kinds:{artifact!r} is not in produces")
            unknown = [k for k in kinds if k not in UNIT_KINDS] or ([] if kinds else ["(none)"])
            if unknown:
                allowed = ", ".join(UNIT_KINDS)
                raise ValueError(
                    f"produces_kinds:{artifact!r} lists {unknown[0]!r}; kinds are {allowed}"
                )

    @property
    def has_review_loop(self) -> bool:
        return self.reviewer is not None or self.reviews is not None

    @property
    def resolved_repair_agent(self) -> str | None:
        if not self.has_review_loop:
            return None
        return self.repair_agent or self.lead_agent

    def passes_for(self, mode: str) -> int | None:
        """Review passes this stage gets in a construction mode (None: no review loop)."""
        if self.max_passes is not None:
            return int(getattr(self.max_passes, mode))
        if self.reviewer is not None:
            return self.reviewer_max_iterations or DEFAULT_REVIEWER_ITERATIONS
        return None
