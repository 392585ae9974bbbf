"""``run_sensors``: every sensor manifest's runner on the claimed files it matches."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from aidlc_review.definitions.sensor import SensorManifest
from aidlc_review.sensors.cache import ResultCache, default_cache_dir, digest
from aidlc_review.sensors.context import SensorContext, SensorError, ToolMissing
from aidlc_review.sensors.globs import filter_matching
from aidlc_review.sensors.registry import resolve_runner
from aidlc_review.sensors.results import CheckResult, errored, skipped


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
    ``coverage_threshold``, ``base_revision``, ``findings_path``, ``timeout_seconds``
    (overrides every manifest's), ``tool_path`` (where to look for tools instead of PATH);
    ``{"cache": False}`` keeps the cache in memory.
    """
    chosen = [m for m in manifests if only is None or m.id in only]
    settings = dict(settings or {})
    root = cache_dir or default_cache_dir()
    cache = ResultCache(root if settings.get("cache", True) else None)
    try:
        return [
            _run_one(workspace, files, m, settings, cache, root, progress or _quiet) for m in chosen
        ]
    finally:
        cache.close()


def _quiet(_: str) -> None:
    return None


def _run_one(
    workspace: Path,
    files: list[str],
    manifest: SensorManifest,
    settings: dict[str, Any],
    cache: ResultCache,
    root: Path,
    progress: Callable[[str], None],
) -> CheckResult:
    name = manifest.id
    required = bool(manifest.runner and manifest.runner.required)
    if manifest.runner is None:
        return skipped(
            name,
            f"no runner block (upstream fires it with: {manifest.command})",
            manifest.category,
            command=manifest.command,
        )
    runner = resolve_runner(manifest.runner.name)
    if runner is None:
        return skipped(
            name,
            f"no built-in runner {manifest.runner.name!r}",
            manifest.category,
            required=required,
            command=manifest.command,
        )
    started = time.monotonic()
    matching = filter_matching(manifest.matches, files)
    # per workspace: parallel units (Bolt worktrees) must not share mypy's or ruff's own caches
    workspace = workspace.resolve()
    scratch = root / "scratch" / digest(str(workspace))[:16] / name
    scratch.mkdir(parents=True, exist_ok=True)
    ctx = SensorContext(workspace, matching, manifest, settings, cache, scratch, progress)
    progress(f"{name}: {len(matching)} claimed file(s) match {manifest.matches}")
    try:
        result = runner(ctx)
    except ToolMissing as exc:
        result = skipped(
            name, str(exc), manifest.category, required=required, details={"unavailable": True}
        )
    except SensorError as exc:
        result = errored(name, str(exc), manifest.category)
    except Exception as exc:  # a runner bug must still read as "could not verify", never a pass
        result = errored(
            name, f"{name} runner failed: {type(exc).__name__}: {exc}", manifest.category
        )
    elapsed = int((time.monotonic() - started) * 1000)
    progress(
        f"{name}: {result.status} ({len(result.findings)} finding(s), {elapsed} ms, "
        f"{ctx.checked} of {len(matching)} file(s) checked, "
        f"{len(matching) - ctx.checked} from the cache)"
    )
    return result.timed(elapsed)
