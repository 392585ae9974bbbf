"""Report formats, one parser each: the runtime knows formats, not tools (STYLE.md).

A parser reads a tool's report into ``Hit``s (path, line, rule, message, level). The tool's
descriptor names the format (``ToolSpec.format``); the rule id is ``<tool>:<rule>``
(``eslint:no-eval``, ``tsc:TS2322``) so severity overrides and waivers read the same for
every tool. An unreadable report is a ``SensorError``: could not verify, never a pass.
"""

from __future__ import annotations

import json
import re
import urllib.parse
import xml.etree.ElementTree as ET  # noqa: S405 - a report the run's own tool wrote
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from aidlc_review.sensors.context import SensorError

MESSAGE_LIMIT = 300
UNFORMATTED = "file is not formatted as the workspace's formatter requires"


@dataclass(frozen=True)
class Hit:
    path: str  # as the tool wrote it (absolute or relative to the workspace)
    line: int | None
    rule: str | None
    message: str
    level: str  # "error" or "warning": the severity table's key
    # what the tool points at, when its report says: (row, column, end row, end column),
    # 1-based, the end column exclusive
    span: tuple[int, int, int, int] | None = None


class UnreadableReport(SensorError):
    """A report its parser cannot read; the runner that ran the tool names the command
    (``by``) in the error it reports."""

    def __init__(self, expected: str, detail: object, writer: str) -> None:
        self.expected, self.detail = expected, str(detail)
        super().__init__(f"unreadable {writer} output ({expected}): {detail}")

    def by(self, writer: str) -> UnreadableReport:
        return UnreadableReport(self.expected, self.detail, writer)


def eslint_json(text: str) -> list[Hit]:
    """``eslint --format json``: a list of files, each with its messages."""
    try:
        files = json.loads(text or "[]")
    except json.JSONDecodeError as exc:
        raise SensorError(f"unreadable eslint output (expected JSON): {exc}") from None
    if not isinstance(files, list):
        raise SensorError("unreadable eslint output: expected a JSON list")
    hits = []
    for entry in files:
        for message in entry.get("messages", []) if isinstance(entry, dict) else []:
            rule = message.get("ruleId") or ("syntax" if message.get("fatal") else None)
            level = "error" if message.get("severity") == 2 else "warning"
            hits.append(
                Hit(str(entry.get("filePath", "")), message.get("line"), rule,
                    _one_line(message.get("message", "")), level)
            )  # fmt: skip
    return hits


_TSC = re.compile(r"^(?P<path>[^\s(][^(]*)\((?P<line>\d+),\d+\): (?P<level>error|warning) "
                  r"(?P<code>TS\d+): (?P<message>.*)$")  # fmt: skip


def tsc_text(text: str) -> list[Hit]:
    """``tsc --pretty false``: ``path(line,col): error TS2322: message`` (continuation lines
    of a long message are indented and read as part of it)."""
    hits: list[Hit] = []
    for line in text.splitlines():
        found = _TSC.match(line)
        if found:
            hits.append(Hit(found["path"], int(found["line"]), found["code"],
                            _one_line(found["message"]), found["level"]))  # fmt: skip
        elif line.startswith(" ") and hits:
            last = hits[-1]
            hits[-1] = Hit(last.path, last.line, last.rule, _one_line(f"{last.message} {line}"),
                           last.level)  # fmt: skip
    return hits


def junit_xml(report: Path) -> list[Hit]:
    """JUnit XML (vitest, jest-junit, pytest, go-junit-report...): a hit per failed or
    erroring test case, at the file the case names (``file``, else a path-like ``classname``)."""
    try:
        root = ET.parse(report).getroot()  # noqa: S314 - written by this run's test runner
    except (OSError, ET.ParseError) as exc:
        raise SensorError(f"unreadable JUnit report {report.name}: {exc}") from None
    hits = []
    for case in root.iter("testcase"):
        problem = case.find("failure")
        if problem is None:
            problem = case.find("error")
        if problem is None:
            continue
        classname, name = case.get("classname", ""), case.get("name", "")
        path = case.get("file") or (classname if "/" in classname or "." in classname else "")
        line = case.get("line")
        said = problem.get("message") or problem.text or problem.tag
        at = (path, int(line)) if line and line.isdigit() else _frame(problem.text or "", path)
        hits.append(Hit(at[0], at[1], f"{classname} > {name}", _one_line(said), "error"))
    return hits


_FRAME = re.compile(r"(?:file://)?(?P<path>[\w@.~/\\-]+\.\w+):(?P<line>\d+):\d+")


def _frame(text: str, path: str) -> tuple[str, int | None]:
    """Where a failure happened when the case has no ``line``: the first stack frame in
    its text on the case's own file (vitest: ``❯ tests/a.test.ts:9:26``), or, when the case
    names no file (node --test), the first frame outside ``node_modules``."""
    for found in _FRAME.finditer(text):
        frame = found["path"]
        if "node_modules/" in frame:
            continue
        if path and frame != path and not frame.endswith(f"/{path}"):
            continue
        return path or frame, int(found["line"])
    return path, None


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def jest_json(report: Path) -> list[Hit]:
    """jest's ``--json`` report (vitest's ``json`` reporter writes the same shape): a hit per
    failed test at its file, at the failing assertion's line (its first stack frame in that
    file) or else, with ``--testLocationInResults``, the line of its ``test(``, named by its
    describe blocks and title; a test file that failed to run is a hit at it."""
    try:
        suites = json.loads(report.read_text(encoding="utf-8"))["testResults"]
        if not isinstance(suites, list):
            raise TypeError("testResults is not a list")
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise SensorError(f"unreadable jest JSON report {report.name}: {exc}") from None
    hits = []
    for suite in suites:
        path = str(suite.get("name", "")) if isinstance(suite, dict) else ""
        cases = suite.get("assertionResults") or [] if isinstance(suite, dict) else []
        failed = [case for case in cases if case.get("status") == "failed"]
        for case in failed:
            line = (case.get("location") or {}).get("line")
            name = " > ".join([*case.get("ancestorTitles", []), str(case.get("title", ""))])
            failure = str((case.get("failureMessages") or ["failed"])[0])
            line = _frame_in(path, failure) or (line if isinstance(line, int) else None)
            hits.append(Hit(path, line, name, _not_stack(failure), "error"))
        if not failed and isinstance(suite, dict) and suite.get("status") == "failed":
            said = _not_stack(suite.get("message") or "the test file failed to run")
            hits.append(Hit(path, None, "(test file)", said, "error"))
    return hits


_STACK_FRAME = re.compile(r"^\s*at (?:.*?\()?(?P<path>[^()\s]+?):(?P<line>\d+):\d+\)?\s*$")


def _frame_in(path: str, failure: str) -> int | None:
    """The line of the failure's first stack frame in the test file itself (the failing
    assertion, or the helper there that failed), else None."""
    for text in _ANSI.sub("", failure).splitlines():
        frame = _STACK_FRAME.match(text)
        if frame and path and frame["path"].removeprefix("file://") == path:
            return int(frame["line"])
    return None


def _not_stack(text: str) -> str:
    kept = [ln for ln in _ANSI.sub("", str(text)).splitlines() if not ln.strip().startswith("at ")]
    return _one_line("\n".join(kept))


def _one_line(text: str) -> str:
    return " ".join(part.strip() for part in str(text).splitlines() if part.strip())[:MESSAGE_LIMIT]


_SARIF_LEVELS = {"error": "error", "warning": "warning", "note": "warning", "none": "warning"}


def sarif(text: str) -> list[Hit]:
    """SARIF 2.1.0 (any static analyser): each result at its first physical location; a
    ``file://`` URI is a path, a relative one is the workspace's."""
    try:
        log = json.loads(text)
        runs = log["runs"]
    except (ValueError, KeyError, TypeError) as exc:
        raise SensorError(f"unreadable SARIF output: {exc}") from None
    hits = []
    for run in runs if isinstance(runs, list) else []:
        for result in run.get("results", []) if isinstance(run, dict) else []:
            place = ((result.get("locations") or [{}])[0] or {}).get("physicalLocation", {})
            uri = str(place.get("artifactLocation", {}).get("uri", ""))
            path = urllib.parse.unquote(uri.removeprefix("file://"))
            line = place.get("region", {}).get("startLine")
            message = (result.get("message") or {}).get("text", "")
            level = _SARIF_LEVELS.get(str(result.get("level", "warning")), "warning")
            hits.append(Hit(path, line if isinstance(line, int) else None,
                            result.get("ruleId"), _one_line(message), level))  # fmt: skip
    return hits


def checkstyle_xml(text: str) -> list[Hit]:
    """Checkstyle XML (shellcheck ``-f checkstyle``, many linters): ``<file name>`` holding
    ``<error line severity message source>``."""
    try:
        root = ET.fromstring(text)  # noqa: S314 - the run's own tool wrote it
    except ET.ParseError as exc:
        raise SensorError(f"unreadable checkstyle output: {exc}") from None
    hits = []
    for file in root.iter("file"):
        for error in file.iter("error"):
            line = error.get("line", "")
            rule = (error.get("source") or "").rsplit(".", 1)[-1] or None
            level = "error" if error.get("severity") == "error" else "warning"
            hits.append(Hit(file.get("name", ""), int(line) if line.isdigit() else None, rule,
                            _one_line(error.get("message", "")), level))  # fmt: skip
    return hits


def ruff_json(text: str) -> list[Hit]:
    """ruff's ``--output-format json`` (``ruff check``, and ``ruff format --check``): a list of
    diagnostics, each at its file, row and range, with its rule code (none: the file does not
    parse) and the URL of the rule's page, quoted after the message as ruff's own link. The
    formatter's code ``unformatted`` is a file it would change (level ``unformatted``)."""
    try:
        items = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UnreadableReport("expected JSON", exc, "ruff") from None
    if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
        raise UnreadableReport("expected a JSON list of diagnostics", text[:80], "ruff")
    hits = []
    for item in items:
        code = str(item.get("code") or "syntax")
        start, end = item.get("location") or {}, item.get("end_location") or {}
        url = item.get("url")
        link = f"({url})" if isinstance(url, str) and url.startswith("https://") else ""
        message = " ".join(part for part in (str(item.get("message") or ""), link) if part)
        level = "unformatted" if code == "unformatted" else "error"
        hits.append(Hit(str(item.get("filename", "")), start.get("row"), code, message, level,
                        _span(start, end)))  # fmt: skip
    return hits


def _span(start: dict[str, object], end: dict[str, object]) -> tuple[int, int, int, int] | None:
    row, column, end_row, end_column = (
        start.get("row"), start.get("column"), end.get("row"), end.get("column")
    )  # fmt: skip
    if isinstance(row, int) and isinstance(column, int):
        if isinstance(end_row, int) and isinstance(end_column, int):
            return row, column, end_row, end_column
    return None


_WOULD = re.compile(r"^[Ww]ould reformat:? (?P<path>.+)$", re.MULTILINE)
_CANNOT = re.compile(r"^error: cannot format (?P<path>.+?): (?P<why>.*)$", re.MULTILINE)
# black 24 and later: ``error: cannot parse: <path>:<line>:<column>``, then the source it quotes
_UNPARSED = re.compile(r"^error: cannot parse: (?P<path>.+):(?P<line>\d+):\d+$", re.MULTILINE)
# a unified diff (``--diff``): "--- <name>\t<timestamp>", "+++ ...", then "@@ -<start>[,n] ..."
_DIFF_FILE = re.compile(r"^--- (.+?)\t.*\n\+\+\+ .*\n@@ -(\d+)", re.MULTILINE)


def would_reformat(text: str) -> list[Hit]:
    """A formatter's check in words (black ``--check --diff``): ``would reformat <path>`` for
    each file it would change, located at the first line its unified diff changes when it
    prints one; ``error: cannot format <path>: <why>`` or ``error: cannot parse:
    <path>:<line>:<column>`` for a file it cannot format. Only the diff's line numbers and
    the error's place are read: the source they quote goes nowhere."""
    first = _first_changes(text)
    hits = [
        Hit(name, first.get(name), None, UNFORMATTED, "unformatted")
        for name in (found["path"].strip() for found in _WOULD.finditer(text))
    ]
    hits += [
        Hit(found["path"], None, None, found["why"], "error") for found in _CANNOT.finditer(text)
    ]
    return hits + [
        Hit(found["path"], int(found["line"]), None, "the file does not parse", "error")
        for found in _UNPARSED.finditer(text)
    ]


def _first_changes(diff: str) -> dict[str, int]:
    """The first line the diff changes in each file (old numbering)."""
    found: dict[str, int] = {}
    for match in _DIFF_FILE.finditer(diff):
        line = int(match.group(2))
        for text in diff[match.end() :].split("\n")[1:]:
            if text.startswith(("-", "+")):
                break
            line += 1  # a context line before the first change
        found.setdefault(match.group(1), max(line, 1))
    return found


def file_list(text: str) -> list[Hit]:
    """One path per line: the files a formatter's check would change (``prettier
    --list-different``, ``biome format`` with ``--reporter=summary``...)."""
    return [Hit(line.strip(), None, None, UNFORMATTED, "unformatted") for line in text.splitlines()
            if line.strip()]  # fmt: skip


_GNU = re.compile(
    r"^(?:vet: )?(?P<path>[^\s:][^:\n]*\.[\w+-]+):(?P<line>\d+):(?:(?P<col>\d+):)?\s+"
    r"(?:(?P<level>error|warning|note):\s+)?(?P<message>\S.*)$"
)


def gnu_text(text: str) -> list[Hit]:
    """The GNU diagnostic form compilers and many checkers print (``go vet``, gcc, clang,
    javac, shellcheck's gcc format): ``path:line[:col]: [level:] message``, one per line;
    on stdout or stderr (both are read: compilers write diagnostics to stderr)."""
    hits = []
    for line in text.splitlines():
        found = _GNU.match(line.strip())
        if found:
            level = found["level"] if found["level"] in ("warning", "note") else "error"
            hits.append(Hit(found["path"], int(found["line"]), None,
                            _one_line(found["message"]), level))  # fmt: skip
    return hits


_GO_PLACE = re.compile(r"^\s+(?P<file>[\w./-]+\.go):(?P<line>\d+): (?P<message>.*)$")


def go_test_json(report: Path) -> list[Hit]:
    """``go test -json`` (test2json events, one JSON object a line): a hit per failed test at
    the first ``file.go:line:`` its output names (the path is the package's import path
    plus the file, resolved by its longest tail in the workspace), and one per package that
    failed to build, at its first diagnostic."""
    output: dict[tuple[str, str], list[str]] = {}
    hits = []
    for number, line in enumerate(_report_text(report).splitlines(), start=1):
        if not line.startswith("{"):
            continue  # go's own build output between events
        try:
            event = json.loads(line)
        except json.JSONDecodeError as exc:
            raise SensorError(f"{report.name}:{number}: not a test2json event: {exc}") from None
        package = str(event.get("Package") or event.get("ImportPath", "")).split(" [")[0]
        key = (package, str(event.get("Test", "")))
        if event.get("Action") in ("output", "build-output"):
            output.setdefault(key, []).append(str(event.get("Output", "")))
        elif event.get("Action") == "fail":
            hits += _go_failure(key, output.get(key, []))
    return hits


def _go_failure(key: tuple[str, str], said: list[str]) -> list[Hit]:
    package, test = key
    if not test:  # a package fails on its failed tests (each a hit already) or its build
        built = gnu_text("".join(said))  # paths relative to where go test ran
        return [Hit(h.path, h.line, "build-failed", h.message, "error") for h in built[:1]]
    for text in said:
        place = _GO_PLACE.match(text.rstrip("\n"))
        if place:
            where = f"{package}/{place['file']}"
            return [Hit(where, int(place["line"]), test, _one_line(place["message"]), "error")]
    return [Hit(package, None, test, _one_line("".join(said)[-MESSAGE_LIMIT:]), "error")]


def _report_text(report: Path) -> str:
    try:
        return report.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise SensorError(f"unreadable report {report.name}: {exc}") from None


TEXT_FORMATS: dict[str, Callable[[str], list[Hit]]] = {
    "gnu-text": gnu_text,
    "eslint-json": eslint_json,
    "tsc-text": tsc_text,
    "file-list": file_list,
    "sarif": sarif,
    "checkstyle-xml": checkstyle_xml,
    "ruff-json": ruff_json,
    "would-reformat": would_reformat,
}
FILE_FORMATS: dict[str, Callable[[Path], list[Hit]]] = {
    "junit-xml": junit_xml,
    "jest-json": jest_json,
    "go-test-json": go_test_json,
}
# formats whose tools write their diagnostics to stderr: both streams are read
BOTH_STREAMS = frozenset({"gnu-text", "would-reformat"})
