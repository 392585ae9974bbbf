"""Coverage report formats, one parser each: lcov, istanbul JSON, Cobertura XML, Go
coverprofile, JaCoCo XML.

Each reads the report a test runner wrote into the ``Report`` the coverage.py path produces
(per workspace-relative path: statements, executed and missing lines, branches), so the
threshold, changed-line and per-file judgments are the same for every language. A line is
executed when any count for it is above zero (istanbul's and lcov's own rule). Paths are
made workspace-relative: an absolute path inside the workspace, a relative one as it stands
(or, for import-path names such as Go's ``example.com/calc/add.go``, the longest trailing
part that names a workspace file); a file outside the workspace is left out. A report that
is empty, truncated or malformed is a ``SensorError`` naming where: could not verify,
never a pass.
"""

from __future__ import annotations

import json
import os
import re
import xml.etree.ElementTree as ET  # noqa: S405 - a report the run's own test runner wrote
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Any

from aidlc_review.sensors.context import SensorError
from aidlc_review.sensors.coverage_analysis import Report, percent


class _Tally:
    """Line hits and branch outcomes per reported path, merged over repeated entries."""

    def __init__(self, workspace: Path, bases: tuple[Path, ...] = ()) -> None:
        self.workspace = workspace
        self.bases = bases
        self.lines: dict[str, dict[int, int]] = {}
        self.branches: dict[str, dict[tuple[Any, ...], bool]] = {}

    def file(self, reported: str) -> str | None:
        path = workspace_path(self.workspace, reported, self.bases)
        if path is not None:
            self.lines.setdefault(path, {})
            self.branches.setdefault(path, {})
        return path

    def line(self, path: str | None, number: int, hits: int) -> None:
        if path is not None:
            known = self.lines[path]
            known[number] = max(known.get(number, 0), hits)

    def branch(self, path: str | None, key: tuple[Any, ...], taken: bool) -> None:
        if path is not None:
            self.branches[path][key] = self.branches[path].get(key, False) or taken

    def report(self) -> Report:
        return {path: _entry(self.lines[path], self.branches[path]) for path in sorted(self.lines)}


def _entry(lines: dict[int, int], branches: dict[tuple[Any, ...], bool]) -> dict[str, Any]:
    executed = sorted(n for n, hits in lines.items() if hits > 0)
    missing = sorted(n for n, hits in lines.items() if hits <= 0)
    taken = sum(1 for outcome in branches.values() if outcome)
    return {
        "statements": len(lines),
        "covered_lines": len(executed),
        "branches": len(branches),
        "covered_branches": taken,
        "percent": percent(len(executed) + taken, len(lines) + len(branches)),
        "executed": executed,
        "missing": missing,
    }


def workspace_path(workspace: Path, reported: str, bases: tuple[Path, ...] = ()) -> str | None:
    """``reported`` as a workspace-relative POSIX path; None when it lies outside."""
    reported = reported.strip().removeprefix("file://")
    if not reported:
        return None
    for base in bases:  # Cobertura's <source> folders
        joined = base / reported
        if joined.is_file():
            return workspace_path(workspace, str(joined))
    if os.path.isabs(reported):
        for root in (workspace, workspace.resolve()):
            for candidate in (Path(reported), Path(os.path.realpath(reported))):
                if candidate.is_relative_to(root):
                    return candidate.relative_to(root).as_posix()
        return None
    normal = PurePosixPath(os.path.normpath(reported).replace(os.sep, "/"))
    if normal.parts[:1] == ("..",):
        return None
    for start in range(len(normal.parts)):  # import-path names: the longest existing tail
        tail = PurePosixPath(*normal.parts[start:])
        if (workspace / tail).is_file():
            return tail.as_posix()
    return normal.as_posix()


def _text(report: Path) -> str:
    try:
        text = report.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SensorError(f"unreadable coverage report {report.name}: {exc}") from None
    if not text.strip():
        raise SensorError(f"unreadable coverage report {report.name}: it is empty")
    return text


def _number(text: str, where: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise SensorError(f"{where}: expected a number, got {text!r}") from None


def lcov(report: Path, workspace: Path) -> Report:
    """lcov tracefiles (``lcov.info``: vitest, jest, c8, node --test, lcov/geninfo):
    ``SF:`` opens a file's record, ``DA:line,hits`` and ``BRDA:line,block,branch,taken``
    fill it, ``end_of_record`` closes it."""
    tally = _Tally(workspace)
    path: str | None = None
    opened = seen = False
    for number, raw in enumerate(_text(report).splitlines(), start=1):
        line = raw.strip()
        where = f"{report.name}:{number}"
        key, _, value = line.partition(":")
        if line == "end_of_record":
            opened, path = False, None
        elif key == "SF":
            if opened:
                raise SensorError(f"{where}: SF: before the previous record's end_of_record")
            opened, seen, path = True, True, tally.file(value)
        elif key in ("DA", "BRDA") and not opened:
            raise SensorError(f"{where}: {key}: outside a file's record (no SF: before it)")
        elif key == "DA":
            fields = value.split(",")
            if len(fields) < 2:
                raise SensorError(f"{where}: DA: expected 'line,hits', got {value!r}")
            tally.line(path, _number(fields[0], where), _number(fields[1], where))
        elif key == "BRDA":
            fields = value.split(",")
            if len(fields) != 4:
                said = f"expected 'line,block,branch,taken', got {value!r}"
                raise SensorError(f"{where}: BRDA: {said}")
            taken = fields[3] not in ("-", "0")
            tally.branch(path, (_number(fields[0], where), fields[1], fields[2]), taken)
    if opened:
        raise SensorError(f"{report.name}: truncated: the last record has no end_of_record")
    if not seen:
        raise SensorError(f"{report.name}: not an lcov tracefile (no SF: record)")
    return tally.report()


def istanbul_json(report: Path, workspace: Path) -> Report:
    """istanbul's ``coverage-final.json`` (vitest, jest, nyc, c8): per file a ``statementMap``
    with its counts ``s``, and a ``branchMap`` with its counts ``b``; a line's count is the
    highest of the statements starting on it."""
    try:
        data = json.loads(_text(report))
    except json.JSONDecodeError as exc:
        raise SensorError(f"{report.name}:{exc.lineno}: not JSON: {exc.msg}") from None
    if not isinstance(data, dict):
        raise SensorError(f"{report.name}: $: expected an object of files")
    tally = _Tally(workspace)
    for name, entry in data.items():
        at = f"{report.name}: $[{json.dumps(name)}]"
        entry = entry.get("data", entry) if isinstance(entry, dict) else entry  # nyc <= 14
        statements, counts = _field(entry, at, "statementMap"), _field(entry, at, "s")
        path = tally.file(str(entry.get("path", name)))
        for key, place in statements.items():
            start = _at(place, f"{at}.statementMap[{json.dumps(key)}]")
            hits = counts.get(key)
            if not isinstance(hits, int):
                raise SensorError(f"{at}.s[{json.dumps(key)}]: expected a count, got {hits!r}")
            tally.line(path, start, hits)
        branches = entry.get("b", {})
        if not isinstance(branches, dict):
            raise SensorError(f"{at}.b: expected an object")
        for key, outcomes in branches.items():
            if not isinstance(outcomes, list) or not all(isinstance(o, int) for o in outcomes):
                raise SensorError(f"{at}.b[{json.dumps(key)}]: expected a list of counts")
            for index, hits in enumerate(outcomes):
                tally.branch(path, (key, index), hits > 0)
    return tally.report()


def _field(entry: Any, at: str, key: str) -> dict[str, Any]:
    value = entry.get(key) if isinstance(entry, dict) else None
    if not isinstance(value, dict):
        raise SensorError(f"{at}.{key}: missing (expected an object)")
    return value


def _at(place: Any, at: str) -> int:
    line = place.get("start", {}).get("line") if isinstance(place, dict) else None
    if not isinstance(line, int):
        raise SensorError(f"{at}.start.line: expected a number, got {line!r}")
    return line


_CONDITIONS = re.compile(r"\((\d+)/(\d+)\)")


def cobertura_xml(report: Path, workspace: Path) -> Report:
    """Cobertura XML (coverage.py ``xml``, jest/vitest ``cobertura``, gcovr, JaCoCo converters):
    ``<class filename>`` with ``<line number hits>``, a branch line's ``condition-coverage``
    saying ``(taken/total)``; file names are relative to a ``<source>`` folder."""
    root = _xml(report)
    if root.tag != "coverage":
        raise SensorError(f"{report.name}: the root element is <{root.tag}>, not <coverage>")
    bases = tuple(Path(s.text.strip()) for s in root.iter("source") if s.text and s.text.strip())
    tally = _Tally(workspace, bases)
    for cls in root.iter("class"):
        path = tally.file(cls.get("filename", ""))
        for line in cls.findall("./lines/line"):
            where = f"{report.name}: <class filename={cls.get('filename')!r}> <line>"
            number = _number(line.get("number", ""), f"{where} number")
            tally.line(path, number, _number(line.get("hits", ""), f"{where} hits"))
            said = _CONDITIONS.search(line.get("condition-coverage", ""))
            if line.get("branch") == "true" and said:
                taken, total = int(said[1]), int(said[2])
                for index in range(total):
                    tally.branch(path, (number, index), index < taken)
    return tally.report()


def jacoco_xml(report: Path, workspace: Path) -> Report:
    """JaCoCo's XML report (``jacoco:report``, Gradle's ``jacocoTestReport``; its DTD is
    ``-//JACOCO//DTD Report 1.1//EN``): ``<report>``, packages (inside ``<group>``s for a
    multi-module build) named in VM notation (``com/example/shop``), each ``<sourcefile
    name>`` with ``<line nr mi ci mb cb>``: missed and covered instructions and branches. A
    line ran when it has a covered instruction (JaCoCo's own rule); its branches are ``mb +
    cb``, ``cb`` of them taken. The report names no source folder: ``com/example/shop/Cart.java``
    is the workspace file whose path ends so (``src/main/java/...``), else kept as named."""
    root = _xml(report)
    if root.tag != "report":
        raise SensorError(f"{report.name}: the root element is <{root.tag}>, not <report>")
    named = {
        _joined(package.get("name", ""), source.get("name", ""))
        for package in root.iter("package")
        for source in package.findall("sourcefile")
    }
    found = _files_ending(workspace, named)
    tally = _Tally(workspace)
    for package in root.iter("package"):
        for source in package.findall("sourcefile"):
            reported = _joined(package.get("name", ""), source.get("name", ""))
            path = tally.file(found.get(reported, reported))
            for line in source.findall("line"):
                where = f"{report.name}: <sourcefile name={reported!r}> <line>"
                number = _number(line.get("nr", ""), f"{where} nr")
                counts = {k: _number(line.get(k, "0"), f"{where} {k}") for k in _JACOCO}
                tally.line(path, number, counts["ci"])
                for index in range(counts["mb"] + counts["cb"]):
                    tally.branch(path, (number, index), index < counts["cb"])
    return tally.report()


_JACOCO = ("mi", "ci", "mb", "cb")  # the DTD's line attributes besides nr, each "0" by default
# folders a build writes into or installs into: never where the project's sources are
_NOT_SOURCE = frozenset({"build", "target", "node_modules", "out", "bin"})


def _joined(package: str, name: str) -> str:
    return f"{package.strip('/')}/{name}" if package.strip("/") else name


def _files_ending(workspace: Path, reported: set[str]) -> dict[str, str]:
    """Each reported ``package/File.java`` -> the one workspace file whose path ends with it
    (one walk of the workspace; none or several: left out, the name is kept as reported)."""
    names = {PurePosixPath(r).name for r in reported}
    seen: dict[str, list[str]] = {}
    for folder, dirs, files in os.walk(workspace):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _NOT_SOURCE)
        here = Path(folder).relative_to(workspace).as_posix()
        for name in (f for f in files if f in names):
            seen.setdefault(name, []).append(f"{here}/{name}" if here != "." else name)
    found = {}
    for wanted in reported:
        ends = [p for p in seen.get(PurePosixPath(wanted).name, []) if _ends(p, wanted)]
        if len(ends) == 1:
            found[wanted] = ends[0]
    return found


def _ends(path: str, wanted: str) -> bool:
    return path == wanted or path.endswith("/" + wanted)


def _xml(report: Path) -> ET.Element:
    try:
        return ET.fromstring(_text(report))  # noqa: S314 - the run's own test runner wrote it
    except ET.ParseError as exc:
        row, column = exc.position
        raise SensorError(f"{report.name}:{row}:{column}: not XML: {exc}") from None


_BLOCK = re.compile(
    r"^(?P<file>.+):(?P<start>\d+)\.\d+,(?P<end>\d+)\.\d+ (?P<stmts>\d+) (?P<n>\d+)$"
)


def go_coverprofile(report: Path, workspace: Path) -> Report:
    """``go test -coverprofile``: ``mode:`` then ``file:startLine.col,endLine.col statements
    count`` per block; each line of a block counts (as gcov2lcov converts it), executed when a
    block over it ran. Go names files by import path (``example.com/calc/add.go``)."""
    lines = _text(report).splitlines()
    if not lines[0].startswith("mode: "):
        raise SensorError(f"{report.name}:1: not a Go coverprofile (no 'mode:' line)")
    tally = _Tally(workspace)
    paths: dict[str, str | None] = {}
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        block = _BLOCK.match(line.strip())
        if block is None:
            raise SensorError(f"{report.name}:{number}: not a coverprofile block: {line[:120]!r}")
        if block["stmts"] == "0":
            continue
        if block["file"] not in paths:
            paths[block["file"]] = tally.file(block["file"])
        for covered in range(int(block["start"]), int(block["end"]) + 1):
            tally.line(paths[block["file"]], covered, int(block["n"]))
    return tally.report()


COVERAGE_FORMATS: dict[str, Callable[[Path, Path], Report]] = {
    "lcov": lcov,
    "istanbul-json": istanbul_json,
    "cobertura-xml": cobertura_xml,
    "go-coverprofile": go_coverprofile,
    "jacoco-xml": jacoco_xml,
}
