"""Read a harness directory into validated definition models.

Raw dicts stop here: every file is read, split, parsed and validated into a
frozen model that knows its file and line. Errors are collected, not raised
one by one; the caller decides when to abort.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from aidlc_review.breadcrumbs import diagnostics_from
from aidlc_review.definitions.agent import Agent
from aidlc_review.definitions.base import Definition, Origin
from aidlc_review.definitions.scope import Scope
from aidlc_review.definitions.sensor import RunnerSpec, SensorManifest, ToolSpec
from aidlc_review.definitions.stage import Consume, MaxPasses, Stage
from aidlc_review.errors import Diagnostic
from aidlc_review.frontmatter import Document, FrontmatterError, read_document, to_plain
from aidlc_review.layout import HarnessLayout

M = TypeVar("M", bound=Definition)


@dataclass
class Harness:
    """Everything a harness defines, in file-name order, plus what went wrong reading it."""

    layout: HarnessLayout
    stages: list[Stage] = field(default_factory=list)
    scopes: list[Scope] = field(default_factory=list)
    agents: list[Agent] = field(default_factory=list)
    sensors: list[SensorManifest] = field(default_factory=list)
    sensor_paths: dict[str, str] = field(default_factory=dict)
    documents: dict[str, Document] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def root(self) -> Path:
        return self.layout.root

    def line(self, item: Definition, loc: tuple[str | int, ...] = ()) -> int:
        """The file line of ``loc`` inside the definition ``item``."""
        doc = self.documents.get(item.origin.path)
        return doc.line_of(loc) if doc else item.origin.line

    def where(self, item: Definition, loc: tuple[str | int, ...] = ()) -> str:
        return f"{item.origin.path}:{self.line(item, loc)}"


def _allowed_keys(*models: type[BaseModel]) -> list[str]:
    return sorted({name for model in models for name in model.model_fields})


_STAGE_KEYS = _allowed_keys(Stage, Consume, MaxPasses)
_SENSOR_KEYS = _allowed_keys(SensorManifest, RunnerSpec, ToolSpec)


def load_definition(
    path: Path, display: str, model: type[M], keys: list[str], out: list[Diagnostic]
) -> tuple[M, Document] | None:
    """Read and validate one file; append diagnostics to ``out`` and return None on error."""
    try:
        doc = read_document(path, display)
    except FrontmatterError as exc:
        out.append(exc.diagnostic)
        return None
    try:
        item = model.model_validate(to_plain(doc.data))
    except ValidationError as exc:
        out.extend(diagnostics_from(exc, display, doc.line_of, keys))
        return None
    item.located(Origin(display, doc.first_line))
    return item, doc


def _remember(harness: Harness, doc: Document) -> None:
    harness.documents[doc.display_path] = doc


def _check_stem(display: str, stem: str, value: str, key: str, doc: Document) -> list[Diagnostic]:
    if stem == value:
        return []
    return [Diagnostic(display, doc.line_of((key,)), key, f"{value!r} does not match the file name {stem!r}")]


def load_harness(layout: HarnessLayout) -> Harness:
    harness = Harness(layout)
    out = harness.diagnostics
    for path, display in layout.stage_files():
        loaded = load_definition(path, display, Stage, _STAGE_KEYS, out)
        if loaded:
            stage, doc = loaded
            _remember(harness, doc)
            out.extend(_check_stem(display, path.stem, stage.slug, "slug", doc))
            phase_dir = path.parent.name
            if phase_dir != stage.phase:
                out.append(Diagnostic(display, doc.line_of(("phase",)), "phase",
                                      f"{stage.phase!r} does not match its folder {phase_dir!r}"))
            harness.stages.append(stage)
    for path, display in layout.scope_files():
        loaded_scope = load_definition(path, display, Scope, _allowed_keys(Scope), out)
        if loaded_scope:
            scope, doc = loaded_scope
            _remember(harness, doc)
            out.extend(_check_stem(display, path.stem.removeprefix("aidlc-"), scope.name, "name", doc))
            harness.scopes.append(scope)
    for path, display in layout.agent_files():
        loaded_agent = load_definition(path, display, Agent, _allowed_keys(Agent), out)
        if loaded_agent:
            agent, doc = loaded_agent
            _remember(harness, doc)
            out.extend(_check_stem(display, path.stem, agent.name, "name", doc))
            harness.agents.append(agent)
    for path, display in layout.sensor_files():
        loaded_sensor = load_definition(path, display, SensorManifest, _SENSOR_KEYS, out)
        if loaded_sensor:
            sensor, doc = loaded_sensor
            _remember(harness, doc)
            out.extend(_check_stem(display, path.stem.removeprefix("aidlc-"), sensor.id, "id", doc))
            harness.sensors.append(sensor)
            harness.sensor_paths[sensor.id] = display
    return harness
