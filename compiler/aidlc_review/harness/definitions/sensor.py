"""The sensor manifest (``sensors/aidlc-<id>.md``): upstream's fields plus a runner block.

Upstream engines fire ``command``; this plugin's runtime uses ``runner`` (a
built-in runner id, its tool candidates with check-only argv, whether a missing
tool blocks, and how results map to finding severities).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from aidlc_review.harness.definitions.base import KEBAB, Definition

# The severity vocabulary (definitions import nothing of ours; the blocking rule itself
# lives in aidlc_review.severity).
Severity = Literal["critical", "major", "minor"]


class ToolSpec(Definition):
    """One tool a runner may use; the first candidate the workspace configures wins."""

    tool: str
    argv: list[str]
    version: list[str] | None = None
    detect: list[str] = []


class RunnerSpec(Definition):
    name: str = Field(pattern=KEBAB)
    required: bool = False
    tools: list[ToolSpec] = []
    severity: dict[str, Severity] = {}
    options: dict[str, Any] = {}


class Enforcement(Definition):
    """What only this plugin's runtime enforces, nested where upstream's reader does not look.

    An installed manifest must say ``default_severity: advisory`` (upstream knows no other
    value); the severity and firing time the plugin enforces at its own gate live here.
    """

    default_severity: Literal["advisory", "blocking"]
    fire_on: Literal["write", "gate"] | None = None


class SensorManifest(Definition):
    id: str = Field(pattern=KEBAB)
    kind: Literal["deterministic"]
    command: str
    default_severity: Literal["advisory", "blocking"]
    description: str
    category: str
    fire_on: Literal["write", "gate"] | None = None
    matches: str
    input_schema: dict[str, Any] | None = None
    output_schema: dict[str, Any] | None = None
    timeout_seconds: int = Field(ge=1, le=3600)
    runner: RunnerSpec | None = None
    enforce: Enforcement | None = None

    @property
    def severity_class(self) -> str:
        """``advisory`` or ``blocking`` as this plugin's runtime enforces it."""
        return self.enforce.default_severity if self.enforce else self.default_severity
