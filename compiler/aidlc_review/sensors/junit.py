"""The failing tests of a pytest run, read from the JUnit XML it wrote (``--junitxml``).

pytest is asked for the ``xunit1`` family (its descriptor's ``report_args``), whose test
cases carry the file they come from, so each failure can be named by its node ID
(``tests/test_calc.py::test_add``) and placed at its file and line.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET  # noqa: S405 - the run's own report, parsed without entities
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

MESSAGE_LIMIT = 300


@dataclass(frozen=True)
class FailedTest:
    node_id: str
    path: str | None  # workspace-relative POSIX, when pytest named the file
    line: int | None  # 1-based
    message: str  # the assertion or error message, on one line
    # the places its traceback passed through (pytest's ``path:line: in func`` lines), so a
    # static finding on one of them can be named as its cause (one defect, one finding)
    frames: tuple[tuple[str, int], ...] = ()


def failed_tests(report: Path) -> list[FailedTest] | None:
    """Every failed or erroring test case, in report order; None when no report was written
    or it cannot be read (the caller then says the names are unknown)."""
    try:
        root = ET.parse(report).getroot()  # noqa: S314 - written by this run's pytest
    except (OSError, ET.ParseError):
        return None
    found = []
    for case in root.iter("testcase"):
        problem = case.find("failure")
        if problem is None:
            problem = case.find("error")
        if problem is not None:
            found.append(_failed(case, problem))
    return found


def _failed(case: ET.Element, problem: ET.Element) -> FailedTest:
    path = case.get("file") or None
    classname, name = case.get("classname", ""), case.get("name", "")
    node_id = f"{path}::{_class_part(path, classname)}{name}" if path else f"{classname}::{name}"
    line = case.get("line")
    text = problem.get("message") or (problem.text or "") or problem.tag
    said = " ".join(part.strip() for part in text.splitlines() if part.strip()) or problem.tag
    return FailedTest(
        node_id,
        PurePosixPath(path).as_posix() if path else None,
        int(line) + 1 if line and line.isdigit() else None,
        said[:MESSAGE_LIMIT],
        frames_of(problem.text or ""),
    )


_FRAME = re.compile(r"^(?P<path>[^\s:][^:\n]*\.py):(?P<line>\d+):", re.MULTILINE)


def frames_of(traceback: str) -> tuple[tuple[str, int], ...]:
    """``(path, line)`` of every frame pytest's long traceback names, in order, once each."""
    seen: dict[tuple[str, int], None] = {}
    for found in _FRAME.finditer(traceback):
        seen.setdefault((PurePosixPath(found["path"]).as_posix(), int(found["line"])), None)
    return tuple(seen)


def _class_part(path: str, classname: str) -> str:
    """``Tests::`` for a method of class ``Tests`` (classname ``tests.test_x.Tests``)."""
    module = PurePosixPath(path).with_suffix("").as_posix().replace("/", ".")
    rest = classname.removeprefix(module).lstrip(".")
    return "".join(f"{part}::" for part in rest.split(".") if part) if rest != classname else ""
