"""The units file: units of work and their dependencies, batched by dependency level.

Accepted shapes (YAML or JSON; JSON is read by the same YAML parser so both get line
numbers): a list ``[{name, depends_on: [...]}, ...]`` or a mapping ``{units: [...]}``.
Every problem is collected and reported at once as ``file:line: $[i].key: message``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from ruamel.yaml.error import MarkedYAMLError

from aidlc_review.diagnostics import Diagnostic
from aidlc_review.errors import InvalidInput, ValidationFailed
from aidlc_review.harness.frontmatter import (
    MAX_DEPTH,
    decode_text,
    make_yaml,
    node_line,
    to_plain,
    too_deep,
)
from aidlc_review.review.inputs.paths import UNIT_NAME
from aidlc_review.typed_load import check, did_you_mean, show, validate

# Unit names (``review.inputs.paths.UNIT_NAME``) become branch names (``bolt-<id8>_<unit>``) and
# directory names.
# Within those characters, what git refuses in a ref name (git-check-ref-format(1)): a run
# with such a unit could never create its branch, so it could never finish.
NOT_IN_A_BRANCH = re.compile(r"\.\.|\.$|\.lock$")


@dataclass(frozen=True)
class Unit:
    name: str
    depends_on: tuple[str, ...]


@dataclass(frozen=True)
class UnitPlan:
    """The units of a run and the order they may run in: batch k depends only on batches < k."""

    units: tuple[Unit, ...]
    batches: tuple[tuple[str, ...], ...]

    def unit(self, name: str) -> Unit:
        return next(u for u in self.units if u.name == name)


def load_units(path: Path) -> UnitPlan:
    """Read and check a units file; raise ``ValidationFailed`` listing every problem."""
    shown = str(path)
    try:
        text = decode_text(path.read_bytes())
        if too_deep(text):
            raise ValidationFailed(
                [Diagnostic(shown, 1, "", f"invalid YAML/JSON: nested deeper than {MAX_DEPTH}")]
            )
        data = make_yaml().load(text)
    except OSError as exc:
        raise InvalidInput(f"{shown}: cannot read: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"{shown}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except MarkedYAMLError as exc:
        try:  # JSON that YAML refuses (tab indentation): read it without line numbers
            return plan_units(json.loads(text), shown)
        except ValueError:
            pass
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 0
        problem = (exc.problem or exc.context or "cannot parse").strip()
        raise ValidationFailed(
            [Diagnostic(shown, line, "", f"invalid YAML/JSON: {problem}")]
        ) from None
    return plan_units(data, shown)


def plan_units(data: Any, shown: str) -> UnitPlan:
    """Check parsed units data (ruamel containers keep lines; plain data gets line 0)."""
    items, prefix = _unit_list(data, shown)
    diagnostics: list[Diagnostic] = []
    units = _read_units(items, prefix, shown, diagnostics)
    names = {u.name for u, _ in units}
    for unit, index in units:
        for dep_index, dep in enumerate(unit.depends_on):
            if dep not in names:
                where = f"{prefix}[{index}].depends_on[{dep_index}]"
                line = _line(items, (index, "depends_on", dep_index))
                message = f"unknown unit {dep!r}{did_you_mean(dep, names)}"
                diagnostics.append(Diagnostic(shown, line, where, message))
            elif dep == unit.name:
                where = f"{prefix}[{index}].depends_on[{dep_index}]"
                line = _line(items, (index, "depends_on", dep_index))
                diagnostics.append(Diagnostic(shown, line, where, "a unit cannot depend on itself"))
    if diagnostics:
        raise ValidationFailed(diagnostics)
    plain = tuple(u for u, _ in units)
    cycle = _find_cycle(plain)
    if cycle:
        line = _line(items, (next(i for u, i in units if u.name == cycle[0]),))
        message = "dependency cycle: " + " --> ".join(cycle)
        raise ValidationFailed([Diagnostic(shown, line, prefix or "$", message)])
    return UnitPlan(plain, _batches(plain))


class UnitEntry(BaseModel):
    """One entry of the units file (a bare name is a unit without dependencies)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    name: str
    depends_on: list[str] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _bare_name(cls, data: Any) -> Any:
        return {"name": data} if isinstance(data, str) else data

    @field_validator("depends_on", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return [] if value is None else value

    @field_validator("name")
    @classmethod
    def _branch_safe(cls, name: str) -> str:
        if not UNIT_NAME.fullmatch(name) or name in (".", ".."):
            raise ValueError(
                f"must be a name of letters, digits, '.', '_' or '-', got {show(name)}"
            )
        if NOT_IN_A_BRANCH.search(name):
            message = "cannot be part of a git branch name (no '..', no trailing '.' or '.lock')"
            raise ValueError(f"{message}, got {show(name)}")
        return name


class UnitsFile(BaseModel):
    """The mapping shape: ``{units: [...]}`` (entries are checked one by one)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    units: list[Any] = Field(default_factory=list)

    @field_validator("units", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return [] if value is None else value


def _unit_list(data: Any, shown: str) -> tuple[list[Any], str]:
    if data is None:
        return [], "$"
    if isinstance(data, dict):
        validate(UnitsFile, to_plain(data), shown, line_of=lambda loc: _line(data, loc))
        return data.get("units") or [], "$.units"
    if not isinstance(data, list):
        message = f"must be a list of units or a mapping with 'units', got {show(data)}"
        raise ValidationFailed([Diagnostic(shown, 1, "$", message)])
    return data, "$"


def _read_units(
    items: list[Any], prefix: str, shown: str, out: list[Diagnostic]
) -> list[tuple[Unit, int]]:
    units: list[tuple[Unit, int]] = []
    first_seen: dict[str, tuple[int, str]] = {}
    for index, item in enumerate(items):
        where = f"{prefix}[{index}]"

        def line_of(loc: tuple[str | int, ...], index: int = index) -> int:
            return _line(items, (index, *loc))

        entry, problems = check(UnitEntry, to_plain(item), shown, line_of=line_of, root=where)
        out.extend(problems)
        if entry is None:
            continue
        key = (
            entry.name.casefold()
        )  # branches and worktree folders collide on case-insensitive disks
        if key in first_seen:
            first, seen_as = first_seen[key]
            also = "" if seen_as == entry.name else f", {seen_as!r}; names differ only in case"
            message = f"duplicate unit {entry.name!r} (first at {prefix}[{first}]{also})"
            out.append(Diagnostic(shown, line_of(("name",)), f"{where}.name", message))
            continue
        first_seen[key] = (index, entry.name)
        units.append((Unit(entry.name, tuple(dict.fromkeys(entry.depends_on))), index))
    return units


def _find_cycle(units: tuple[Unit, ...]) -> list[str] | None:
    """The first dependency cycle in name order, as ``[a, b, a]``; None when acyclic."""
    deps = {u.name: sorted(u.depends_on) for u in units}
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done
    path: list[str] = []

    def visit(name: str) -> list[str] | None:
        state[name] = 1
        path.append(name)
        for dep in deps[name]:
            if state.get(dep) == 1:
                return path[path.index(dep) :] + [dep]
            if dep not in state and (found := visit(dep)):
                return found
        path.pop()
        state[name] = 2
        return None

    for name in sorted(deps):
        if name not in state and (found := visit(name)):
            return found
    return None


def _batches(units: tuple[Unit, ...]) -> tuple[tuple[str, ...], ...]:
    """Dependency levels: a unit runs in the batch after its deepest dependency."""
    level: dict[str, int] = {}
    deps = {u.name: u.depends_on for u in units}

    def depth(name: str) -> int:
        if name not in level:
            level[name] = 1 + max((depth(d) for d in deps[name]), default=-1)
        return level[name]

    for name in deps:
        depth(name)
    count = max(level.values(), default=-1) + 1
    return tuple(tuple(sorted(n for n, lv in level.items() if lv == k)) for k in range(count))


def _line(node: Any, loc: tuple[str | int, ...]) -> int:
    """1-based file line of the YAML node at ``loc`` (nearest existing ancestor)."""
    return node_line(node, loc) + 1
