"""What a runner is given, what it may raise, and the per-file cached loop file-local runners share.

A runner is ``run(ctx: SensorContext) -> CheckResult``. It raises ``ToolMissing``
when its tool is absent or unconfigured (the caller turns that into ``skipped``, or
a blocking finding when ``required``) and ``SensorError`` when the tool crashed,
hung or said something unreadable (the caller turns that into ``error``).
"""

from __future__ import annotations

import configparser
import functools
import hashlib
import tomllib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aidlc_review.harness.definitions.sensor import RunnerSpec, SensorManifest, ToolSpec
from aidlc_review.sensors.cache import ConfigDigests, ResultCache, digest
from aidlc_review.sensors.results import CheckFinding, CheckResult, make_finding, skipped
from aidlc_review.sensors.tools import ToolRun, find_tool, run_tool, shown_command, tool_version

ARGV_BUDGET = 100_000  # bytes of file names per tool run: far below ARG_MAX, one run for most units


class SensorError(Exception):
    """The check could not decide: the tool crashed, hung, or its output was unreadable."""


class TimedOut(SensorError):
    """The tool ran past its time limit and was killed (its whole process group)."""


class ToolMissing(Exception):
    """The tool is not installed, or the workspace configures none of the candidates."""


class NothingChecked(Exception):
    """The tool ran but checked none of the files it was given: ``skipped``, never ``passed``."""


class Unfinished(Exception):
    """The check stopped early (a time limit): ``done`` holds the findings of the files it
    finished, ``unchecked`` a blocking finding for each file it did not. Only ``done`` is cached."""

    def __init__(self, done: dict[str, list[CheckFinding]], unchecked: dict[str, CheckFinding]):
        super().__init__(f"{len(unchecked)} file(s) not checked")
        self.done = done
        self.unchecked = unchecked


@dataclass(frozen=True)
class Tool:
    spec: ToolSpec
    path: Path
    version: str

    def argv(self) -> list[str]:
        return [str(self.path), *self.spec.with_own_config(self.spec.argv[1:])]


@dataclass
class SensorContext:
    workspace: Path
    files: list[str]  # claimed files this sensor matches, workspace-relative POSIX, sorted
    manifest: SensorManifest
    settings: Mapping[str, Any]
    cache: ResultCache
    scratch: Path  # a per-sensor directory for tool caches and data files, outside the workspace
    progress: Callable[[str], None]
    checked: int = 0  # files actually given to the tool (the rest came from the cache)
    secrets_seen: bool = False  # set by the secret-scan: tool caches of this run are dropped
    secrets_cleared: bool = False  # set by the secret-scan: every claimed file scanned, clean
    seeds: Path | None = None  # per-machine starting points for the tools' own caches
    # what to do once the run is known clean: the secret-scan cleared it and nothing was redacted
    keep_if_clean: list[Callable[[], None]] = field(default_factory=list)
    claimed: list[str] = field(default_factory=list)  # every claimed file, matching or not

    @property
    def name(self) -> str:
        return self.manifest.id

    @property
    def runner(self) -> RunnerSpec:
        return self.manifest.runner or RunnerSpec(name=self.manifest.id)

    @property
    def timeout(self) -> float:
        return float(self.settings.get("timeout_seconds", self.manifest.timeout_seconds))

    def option(self, key: str, default: Any = None) -> Any:
        return self.runner.options.get(key, default)

    def severity(self, key: str, default: str = "minor") -> str:
        """The manifest's severity for ``key``; an advisory sensor never blocks on its findings."""
        chosen = self.runner.severity.get(key, self.runner.severity.get("default", default))
        return "minor" if self.manifest.severity_class == "advisory" else chosen

    def finding(
        self,
        path: str,
        line: int | None,
        message: str,
        rule: str | None,
        severity_key: str,
        default: str = "minor",
        identity: str | None = None,
    ) -> CheckFinding:
        return make_finding(
            self.name,
            self.severity(severity_key, default),
            self.manifest.category,
            path,
            line,
            message,
            rule,
            identity,
        )

    def run(
        self, argv: list[str], env: dict[str, str] | None = None, announce: str | None = None
    ) -> ToolRun:
        """Run a tool for this check. ``announce`` (how the run is shown, e.g. the project's
        test command): say it, redacted, and the timeout as it starts, for runs that can be long;
        any run says it is still going every ``HEARTBEAT_SECONDS``."""
        from aidlc_review.sensors.redact import scrub  # detect-secrets: only when shown

        def shown() -> str:
            return scrub(announce or shown_command(*_split_files(argv)))[0]

        def started() -> None:  # said once the tool runs: no redaction delays its start
            self.progress(f"{self.name}: running {shown()} (timeout {self.timeout:g}s)")

        def beat(seconds: float) -> None:
            said = f"still running {shown()} ({seconds:.0f}s of {self.timeout:g}s)"
            self.progress(f"{self.name}: {said}")

        run = run_tool(
            argv,
            self.workspace,
            self.timeout,
            env,
            heartbeat=beat,
            started=started if announce else None,
        )
        if run.timed_out:
            raise TimedOut(f"{Path(argv[0]).name} timed out after {self.timeout:g}s")
        if run.flooded:
            raise SensorError(f"{Path(argv[0]).name} {run.flooded}: stopped, nothing it said read")
        return run


def _split_files(argv: list[str]) -> tuple[list[str], list[str]]:
    """The command and the files after its ``--`` (shown counted, not listed)."""
    if "--" not in argv:
        return argv, []
    at = argv.index("--")
    return argv[:at], argv[at + 1 :]


def nothing_to_check(ctx: SensorContext) -> CheckResult:
    return skipped(
        ctx.name, f"no claimed file matches {ctx.manifest.matches}", ctx.manifest.category
    )


def is_detected(spec: ToolSpec, workspace: Path) -> bool:
    """A tool applies when it has no ``detect`` list, or one entry matches the workspace.

    ``name`` means the file exists at the workspace root; ``file.toml:tool.x`` means that
    TOML file has the ``[tool.x]`` table; ``file.cfg:section`` (or ``.ini``) means that INI
    file has the ``[section]`` section.
    """
    if not spec.detect:
        return True
    return any(_detect_one(entry, workspace) for entry in spec.detect)


def _detect_one(entry: str, workspace: Path) -> bool:
    name, _, table = entry.partition(":")
    path = workspace / name
    if not path.is_file():
        return False
    if not table:
        return True
    if path.suffix in (".cfg", ".ini"):
        return _ini_has_section(path, table)
    try:
        data = parse_keyed(path.read_text(encoding="utf-8"), path.suffix == ".json")
    except (OSError, UnicodeDecodeError, ValueError):  # TOMLDecodeError is a ValueError
        return False
    return dig(data, table) is not ABSENT


ABSENT = object()  # what ``dig`` finds where the key is not


def parse_keyed(text: str, json_file: bool) -> Any:
    """A TOML file, or a JSON one (``package.json``): ValueError when it does not parse."""
    import json

    return json.loads(text) if json_file else tomllib.loads(text)


def dig(data: Any, dotted: str) -> Any:
    """The value at ``a.b.c`` in nested tables; ``ABSENT`` when a key is not there."""
    for key in dotted.split("."):
        if not isinstance(data, dict) or key not in data:
            return ABSENT
        data = data[key]
    return data


def _ini_has_section(path: Path, section: str) -> bool:
    """An unreadable file configures nothing (the tool itself would reject it too)."""
    parser = configparser.RawConfigParser(strict=False, interpolation=None)
    try:
        parser.read_string(path.read_text(encoding="utf-8"), source=str(path))
    except (OSError, UnicodeDecodeError, configparser.Error):
        return False
    return parser.has_section(section)


def select_tool(ctx: SensorContext) -> Tool:
    """The first candidate the workspace configures that is installed."""
    configured = [  # the runner's own tools: a described one runs through sensors.described
        spec
        for spec in ctx.runner.tools
        if spec.format is None and is_detected(spec, ctx.workspace)
    ]
    if not configured:
        names = sorted({e for spec in ctx.runner.tools if spec.format is None for e in spec.detect})
        raise ToolMissing(
            f"no {ctx.name} configured in the workspace (looked for {', '.join(names)})"
        )
    for spec in configured:
        path = find_tool(spec.tool, ctx.settings.get("tool_path"))
        if path is not None:
            return Tool(spec, path, cached_version(ctx, path, spec.version))
    raise ToolMissing(f"{configured[0].tool} not found on PATH")


def cached_version(ctx: SensorContext, path: Path, argv: list[str] | None) -> str:
    stat = path.stat()
    key = "version:" + digest(str(path), stat.st_mtime_ns, stat.st_size, argv)
    known = ctx.cache.get(key)
    if isinstance(known, str):
        return known
    version = tool_version(path, argv, ctx.timeout)
    if version != "unknown":
        ctx.cache.put_many({key: version})
    return version


def _batches(files: list[str]) -> Iterator[list[str]]:
    batch: list[str] = []
    size = 0
    for name in files:
        if batch and size + len(name) + 1 > ARGV_BUDGET:
            yield batch
            batch, size = [], 0
        batch.append(name)
        size += len(name) + 1
    if batch:
        yield batch


def _file_key(*parts: str) -> str:
    # plain joins, not digest(): this runs once per claimed file on every run
    return "file:" + hashlib.sha256("\0".join(parts).encode()).hexdigest()


def _content_hash(path: Path) -> str:
    # one read per file: claimed files are source files, small enough to hold at once
    return hashlib.sha256(path.read_bytes()).hexdigest()


CheckFiles = Callable[[list[str]], dict[str, list[CheckFinding]]]


@functools.cache
def sensors_code() -> str:
    """The sha256 of this package's sensor code: a cached result was made by the code that
    reads the tool's output, so a changed parser never serves findings in the old shape."""
    hashed = hashlib.sha256()
    for path in sorted(Path(__file__).resolve().parent.glob("*.py")):
        hashed.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return hashed.hexdigest()


def run_file_local(
    ctx: SensorContext,
    tool_key: Any,
    label: str,
    config_names: list[str],
    check: CheckFiles,
    salt: Callable[[str], str] | None = None,
) -> list[CheckFinding]:
    """Check only the files whose (content, tool version and settings, config) is not cached yet.

    ``tool_key`` identifies the tool build and its settings; ``check`` runs the tool on a
    batch and returns findings per file (absent = clean). It raises ``SensorError`` on a
    tool failure, and then nothing from that batch is cached; ``Unfinished`` when it stopped
    early, and then only the files it finished are cached. ``salt`` says what else a
    file's findings depend on (the standing of its suppressions at the base).
    """
    configs = ConfigDigests(ctx.workspace, config_names)
    base = digest(
        ctx.name, tool_key, ctx.runner.severity, ctx.manifest.severity_class, sensors_code()
    )
    keys = {
        f: _file_key(
            base, f, _content_hash(ctx.workspace / f), configs.for_file(f), salt(f) if salt else ""
        )
        for f in ctx.files
    }
    cached = ctx.cache.get_many(list(keys.values()))
    todo = [f for f in ctx.files if keys[f] not in cached]
    results = {
        f: [CheckFinding.from_json(d) for d in cached[keys[f]]]
        for f in ctx.files
        if keys[f] in cached
    }
    for batch in _batches(todo):
        ctx.progress(f"{ctx.name}: checking {len(batch)} file(s) with {label}")
        try:
            found, unchecked = check(batch), {}
        except Unfinished as stop:
            found, unchecked = stop.done, stop.unchecked
        fresh = {f: found.get(f, []) for f in batch if f not in unchecked}
        ctx.cache.put_many({keys[f]: [x.to_json() for x in items] for f, items in fresh.items()})
        results.update(fresh)
        results.update({f: [finding] for f, finding in unchecked.items()})
    ctx.checked = len(todo)
    return [finding for f in ctx.files for finding in results[f]]
