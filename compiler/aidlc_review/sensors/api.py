"""``run_sensors``: every sensor manifest's runner on the claimed files it matches."""

from __future__ import annotations

import contextlib
import shutil
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from aidlc_review.harness.definitions.sensor import SensorManifest
from aidlc_review.sensors import tool_cache
from aidlc_review.sensors.base_text import base_commit
from aidlc_review.sensors.cache import ResultCache, default_cache_dir, digest
from aidlc_review.sensors.context import NothingChecked, SensorContext, SensorError, ToolMissing
from aidlc_review.sensors.deadline import no_fork
from aidlc_review.sensors.eviction import touch
from aidlc_review.sensors.globs import filter_matching
from aidlc_review.sensors.judging_tree import judging_tree
from aidlc_review.sensors.redact import REDACTED
from aidlc_review.sensors.registry import RUNS_PROJECT_CODE, Runner, resolve_runner
from aidlc_review.sensors.results import CheckFinding, CheckResult, errored, skipped
from aidlc_review.sensors.tool_config import config_changes
from aidlc_review.sensors.tools import on_next_start, release_threads, stop_threads
from aidlc_review.sensors.untaken import untaken

SIDE_BY_SIDE = 2  # static sensors at once (the tools' processes do the work)
FIRST_TOOL_WAIT = 0.5  # seconds the others wait, at most, for the first sensor's tool to start


def run_sensors(
    workspace: Path,
    files: list[str],
    manifests: list[SensorManifest],
    *,
    only: list[str] | None = None,
    cache_dir: Path | None = None,
    settings: dict[str, Any] | None = None,
    progress: Callable[[str], None] | None = None,
) -> list[CheckResult]:
    """One result per manifest (in manifest order; ``only`` keeps those ids), never raising for a
    failing or broken check: those are results.

    ``files`` are workspace-relative POSIX paths (``source_manifest.claimed_files``).
    ``settings`` holds per-run values: ``coverage_command``, ``coverage_data_file``,
    ``coverage_threshold``, ``base_revision``, ``findings_path``, ``team_practices`` (the
    record's team-practices file, for the dependencies sensor), ``timeout_seconds``
    (overrides every manifest's), ``tool_path`` (where to look for tools instead of PATH);
    ``{"cache": False}`` keeps the cache in memory.
    """
    chosen = [m for m in manifests if only is None or m.id in only]
    settings = dict(settings or {})
    progress = progress or _quiet
    root = cache_dir or default_cache_dir()
    cache = ResultCache(root if settings.get("cache", True) else None, progress)
    # per workspace: parallel units (Bolt worktrees) must not share the tools' own caches
    scratch = Scratch(
        root / "scratch" / digest(str(workspace.resolve()))[:16],
        root / "seeds" if cache.directory is not None else None,
    )
    if cache.directory is not None:
        touch(scratch.folder)  # used now: eviction keeps the recently used
    try:
        runs = _run_all(
            chosen, lambda m: _run_one(workspace, files, m, settings, cache, scratch, progress)
        )
        cache.evict(scratch.folder)
    finally:
        cache.close()
    if cache.forged:
        progress(
            f"sensors: {cache.forged} cached result(s) did not verify against this machine's "
            "key (written by something else): checked again"
        )
    contexts = [ctx for _, ctx, _ in runs if ctx is not None]
    if any(tainted for _, _, tainted in runs):
        # the tools' own caches copy source text (messages, Literal types) verbatim:
        # with a secret in the claimed files they are dropped rather than kept or shared
        _drop_tool_caches(scratch.folder)
        progress("sensors: a secret was seen; the tools' own caches were dropped")
    elif any(ctx.secrets_cleared for ctx in contexts):
        for keep in (keep for ctx in contexts for keep in ctx.keep_if_clean):
            keep()  # shared beyond this workspace only after a scan found it clean
    return [result for result, _, _ in runs]


Run = tuple[CheckResult, SensorContext | None, bool]


def _run_all(
    manifests: list[SensorManifest], run_one: Callable[[SensorManifest], Run]
) -> list[Run]:
    """Every sensor's run, in manifest order. The static tools (formatter, linters,
    secret scan, type checker) run ``SIDE_BY_SIDE`` at a time: they only read the claimed
    source, each in its own scratch folder, and most of their time is a tool's process, so
    the type checker's seconds overlap the others'. The first (the type checker, started
    first: ``record.sensor_replay.whole_program_first``) starts its tool before the others
    begin (or ends, or ``FIRST_TOOL_WAIT`` passes), so their Python work does not slow the
    start of the longest tool. Each imports its runner where no fork lands
    (``deadline.no_fork``). Then the sensors that run the project's code, one at a time
    with the machine to themselves (``registry.RUNS_PROJECT_CODE``)."""

    def project_code(manifest: SensorManifest) -> bool:
        return manifest.runner is not None and manifest.runner.name in RUNS_PROJECT_CODE

    static = [m for m in manifests if not project_code(m)]
    workers: set[int] = set()
    first_started = threading.Event()  # the first sensor's tool runs, or that sensor ended

    def on_a_worker(manifest: SensorManifest) -> Run:
        workers.add(threading.get_ident())
        if manifest is not static[0]:
            first_started.wait(FIRST_TOOL_WAIT)
            return run_one(manifest)
        try:
            return run_one(manifest)
        finally:
            first_started.set()

    forget = on_next_start(first_started.set)
    pool = ThreadPoolExecutor(SIDE_BY_SIDE, thread_name_prefix="aidlc-sensor")
    try:
        side_by_side = iter(list(pool.map(on_a_worker, static)))
    except BaseException:  # Ctrl-C, or a sensor that raised: the other tools stop too
        first_started.set()
        pool.shutdown(wait=False, cancel_futures=True)
        stop_threads(frozenset(workers))  # a copy: a worker may still be adding itself
        raise
    finally:
        forget()
        pool.shutdown(wait=True)
        release_threads(frozenset(workers))
    return [run_one(m) if project_code(m) else next(side_by_side) for m in manifests]


def load_runners(manifests: list[SensorManifest]) -> None:
    """Import the manifests' runners now, where no fork can copy them half-imported
    (``deadline.no_fork``): a pass imports the runners of the project's tests on a thread
    while the static tools run, so its tests start as soon as those end. A runner that
    cannot load is left to its sensor, which says why."""
    for manifest in manifests:
        if manifest.runner is not None:
            with no_fork(), contextlib.suppress(Exception):
                resolve_runner(manifest.runner.name)


@dataclass(frozen=True)
class Scratch:
    """Where the tools' own caches go: one folder per workspace (parallel units, Bolt
    worktrees, must not share them) and the machine's seeds to start them from."""

    folder: Path
    seeds: Path | None  # None when the run keeps no cache on disk


def _drop_tool_caches(scratch: Path) -> None:
    """Everything in the workspace's scratch dirs but the lock files, taking each check's
    turn on its tool caches (``tool_cache.lock_of``)."""
    for folder in scratch.iterdir() if scratch.is_dir() else []:
        with tool_cache.lock_of(folder):
            for entry in folder.iterdir():
                if entry.suffix == ".lock":
                    continue
                if entry.is_dir() and not entry.is_symlink():
                    shutil.rmtree(entry, ignore_errors=True)
                else:
                    entry.unlink(missing_ok=True)


def _quiet(_: str) -> None:
    return None


def _run_one(
    workspace: Path,
    files: list[str],
    manifest: SensorManifest,
    settings: dict[str, Any],
    cache: ResultCache,
    scratch: Scratch,
    progress: Callable[[str], None],
) -> tuple[CheckResult, SensorContext | None, bool]:
    """The result, its context, and whether this run saw a secret (found by the scan, or
    redacted)."""
    result, ctx = _run_checked(workspace, files, manifest, settings, cache, scratch, progress)
    seen = ctx is not None and ctx.secrets_seen
    texts = [result.reason or "", *(f.message for f in result.findings)]
    return result, ctx, seen or any(REDACTED in text for text in texts)


def _run_checked(
    workspace: Path,
    files: list[str],
    manifest: SensorManifest,
    settings: dict[str, Any],
    cache: ResultCache,
    scratch: Scratch,
    progress: Callable[[str], None],
) -> tuple[CheckResult, SensorContext | None]:
    name = manifest.id
    required = bool(manifest.runner and manifest.runner.required)
    if manifest.runner is None:
        return skipped(
            name,
            f"no runner block (upstream fires it with: {manifest.command})",
            manifest.category,
            command=manifest.command,
        ), None
    with no_fork():  # imported on a worker: no other thread's fork copies it half-made
        runner = resolve_runner(manifest.runner.name)
    if runner is None:
        return skipped(
            name,
            f"no built-in runner {manifest.runner.name!r}",
            manifest.category,
            required=required,
            command=manifest.command,
        ), None
    started = time.monotonic()
    matching = filter_matching(manifest.matches, files)
    workspace = workspace.resolve()
    folder = scratch.folder / name
    folder.mkdir(parents=True, exist_ok=True)
    ctx = SensorContext(workspace, matching, manifest, settings, cache, folder, progress)
    ctx.seeds, ctx.claimed = scratch.seeds, list(files)
    progress(f"{name}: {len(matching)} claimed file(s) match {manifest.matches}")
    # what the change does to the tools' configuration is judged whatever the tools say
    changes = config_changes(ctx, ctx.runner.tools)
    try:
        result = _judged(ctx, runner, changes)
    except ToolMissing as exc:
        result = skipped(
            name, str(exc), manifest.category, required=required, details={"unavailable": True}
        )
    except NothingChecked as exc:
        result = skipped(name, str(exc), manifest.category, required=required)
    except SensorError as exc:
        result = errored(name, str(exc), manifest.category)
    except Exception as exc:  # a runner bug must still read as "could not verify", never a pass
        result = errored(
            name, f"{name} runner failed: {type(exc).__name__}: {exc}", manifest.category
        )
    result = result.with_findings([f for f in changes if f not in result.findings])
    left = untaken(ctx)  # claimed source files none of this check's tools took
    if left:
        result = replace(result, details={**result.details, "untaken": left})
    elapsed = int((time.monotonic() - started) * 1000)
    # declared tools take claimed files outside `matches`: they count among those considered
    progress(_said(name, result, elapsed, ctx.checked, max(len(matching), ctx.checked)))
    return result.timed(elapsed), ctx


def _judged(ctx: SensorContext, runner: Runner, changes: list[CheckFinding]) -> CheckResult:
    """The runner's result; a static check whose tools' configuration the change edits runs
    in a tree holding the change's source under the base's configuration (``judging_tree``).
    The project's tests run in the workspace: their harness edits block as findings."""
    if not changes or ctx.runner.name in RUNS_PROJECT_CODE:
        return runner(ctx)
    kept = {finding.path for finding in changes}
    commit = base_commit(ctx.workspace, ctx.settings)
    with judging_tree(ctx.workspace, commit, ctx.claimed, kept, ctx.scratch) as tree:
        if tree is None:
            return runner(ctx)
        edited = ", ".join(sorted(kept))
        ctx.progress(f"{ctx.name}: judged with the base's configuration, not the change's {edited}")
        workspace, ctx.workspace = ctx.workspace, tree
        try:
            return runner(ctx)
        finally:
            ctx.workspace = workspace


def _said(name: str, result: CheckResult, elapsed: int, checked: int, matching: int) -> str:
    """The progress line of one check; a skipped check checked nothing, cached or not."""
    if result.status == "skipped":
        return f"{name}: skipped ({result.reason}, {elapsed} ms)"
    return (
        f"{name}: {result.status} ({len(result.findings)} finding(s), {elapsed} ms, "
        f"{checked} of {matching} file(s) checked, {matching - checked} from the cache)"
    )
