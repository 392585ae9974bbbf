"""Read a harness directory into validated definition models.

Raw dicts stop here: every file is read, split, parsed and validated into a
frozen model that knows its file and line. Errors are collected, not raised
one by one; the caller decides when to abort.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from aidlc_review.diagnostics import Diagnostic
from aidlc_review.harness.breadcrumbs import KeyChoices, diagnostics_from
from aidlc_review.harness.definitions.agent import Agent
from aidlc_review.harness.definitions.base import Definition, Origin
from aidlc_review.harness.definitions.dialect import SOURCE, Dialect
from aidlc_review.harness.definitions.scope import Scope
from aidlc_review.harness.definitions.sensor import (
    Enforcement,
    RunnerSpec,
    SensorManifest,
    ToolSpec,
)
from aidlc_review.harness.definitions.stage import Consume, MaxPasses, Stage
from aidlc_review.harness.engine import read_dialect
from aidlc_review.harness.frontmatter import Document, FrontmatterError, read_document
from aidlc_review.harness.layout import HarnessLayout

M = TypeVar("M", bound=Definition)


@dataclass
class Harness:
    """Everything a harness defines, in file-name order, plus what went wrong reading it."""

    layout: HarnessLayout
    # what the harness's engine accepts in the files it owns (SOURCE: no engine)
    dialect: Dialect = SOURCE
    stages: list[Stage] = field(default_factory=list)
    scopes: list[Scope] = field(default_factory=list)
    agents: list[Agent] = field(default_factory=list)
    sensors: list[SensorManifest] = field(default_factory=list)
    sensor_paths: dict[str, str] = field(default_factory=dict)
    documents: dict[str, Document] = field(default_factory=dict)
    # Names of files that did not load (by file stem): references to them are not
    # reported again as unknown, so one broken file gives one set of breadcrumbs.
    unloaded: dict[str, set[str]] = field(
        default_factory=lambda: {"stage": set(), "agent": set(), "sensor": set(), "scope": set()}
    )
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


def _keys(model: type[BaseModel], **nested: type[BaseModel]) -> KeyChoices:
    """Known keys at the top level and under each nested key, for "did you mean"."""
    choices = {"": sorted(model.model_fields)}
    choices.update({parent: sorted(sub.model_fields) for parent, sub in nested.items()})
    return choices


STAGE_KEYS = _keys(Stage, consumes=Consume, max_passes=MaxPasses)
SENSOR_KEYS = _keys(SensorManifest, runner=RunnerSpec, tools=ToolSpec, enforce=Enforcement)


def load_definition(
    path: Path,
    display: str,
    model: type[M],
    keys: KeyChoices,
    out: list[Diagnostic],
    dialect: Dialect = SOURCE,
) -> tuple[M, Document] | None:
    """Read and validate one file in ``dialect``; append diagnostics to ``out`` and return
    None on error."""
    try:
        doc = read_document(path, display)
    except FrontmatterError as exc:
        out.append(exc.diagnostic)
        return None
    data, refused = doc.data, []
    if model is Stage:
        refused = _engine_refuses(doc, dialect)
        out.extend(refused)
        data = {key: value for key, value in data.items() if not _refused(key, dialect)}
    try:
        item = model.model_validate(data, context=dialect.context())
    except ValidationError as exc:
        out.extend(diagnostics_from(exc, display, doc.line_of, keys))
        return None
    if refused:
        return None
    item.located(Origin(display, doc.first_line))
    return item, doc


def _refused(key: str, dialect: Dialect) -> bool:
    """A stage key this compiler knows that the harness's engine does not (a key neither
    knows is the model's to report, with "did you mean")."""
    return key in STAGE_KEYS[""] and dialect.unknown_stage_key(key)


def _engine_refuses(doc: Document, dialect: Dialect) -> list[Diagnostic]:
    """A stage key the harness's engine does not list fails its compile: one breadcrumb each."""
    return [
        Diagnostic(
            doc.display_path,
            doc.line_of((key,)),
            key,
            f"unknown key: {dialect.name}'s stage schema does not list it",
        )
        for key in doc.data
        if _refused(key, dialect)
    ]


# Per kind: the key that must equal the file name, and whether the name drops "aidlc-".
_NAME_KEYS = {
    "stage": ("slug", False),
    "scope": ("name", True),
    "agent": ("name", False),
    "sensor": ("id", True),
}


def _name_mismatch(kind: str, item: Definition, path: Path, doc: Document) -> Diagnostic | None:
    key, prefixed = _NAME_KEYS[kind]
    name = str(getattr(item, key))
    stem = path.stem.removeprefix("aidlc-") if prefixed else path.stem
    if name == stem:
        return None
    message = f"{name!r} does not match the file name {stem!r}"
    return Diagnostic(doc.display_path, doc.line_of((key,)), key, message)


def _phase_mismatch(stage: Stage, path: Path, doc: Document) -> Diagnostic | None:
    if path.parent.name == stage.phase:
        return None
    message = f"{stage.phase!r} does not match its folder {path.parent.name!r}"
    return Diagnostic(doc.display_path, doc.line_of(("phase",)), "phase", message)


def _load_kind(
    harness: Harness, kind: str, files: Iterable[tuple[Path, str]], model: type[M], keys: KeyChoices
) -> list[M]:
    """Load every file of one kind; a file that fails (or is misnamed) is known by its stem."""
    _, prefixed = _NAME_KEYS[kind]
    loaded: list[M] = []
    for path, display in files:
        stem = path.stem.removeprefix("aidlc-") if prefixed else path.stem
        result = load_definition(path, display, model, keys, harness.diagnostics, harness.dialect)
        if result is None:
            harness.unloaded[kind].add(stem)
            continue
        item, doc = result
        harness.documents[display] = doc
        problems = [_name_mismatch(kind, item, path, doc)]
        if isinstance(item, Stage):
            problems.append(_phase_mismatch(item, path, doc))
        if problems[0] is not None:
            harness.unloaded[kind].add(stem)
        harness.diagnostics.extend(p for p in problems if p is not None)
        loaded.append(item)
    return loaded


def load_harness(layout: HarnessLayout) -> Harness:
    harness = Harness(layout, read_dialect(layout.root))
    harness.stages = _load_kind(harness, "stage", layout.stage_files(), Stage, STAGE_KEYS)
    harness.scopes = _load_kind(harness, "scope", layout.scope_files(), Scope, _keys(Scope))
    harness.agents = _load_kind(harness, "agent", layout.agent_files(), Agent, _keys(Agent))
    harness.sensors = _load_kind(
        harness, "sensor", layout.sensor_files(), SensorManifest, SENSOR_KEYS
    )
    harness.sensor_paths = {s.id: s.origin.path for s in harness.sensors}
    return harness
