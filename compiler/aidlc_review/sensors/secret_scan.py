"""secret-scan: detect-secrets' own scanner over the claimed files, minus the workspace baseline.

The secret value is read by detect-secrets and never copied out: a finding keeps
the type, path, line and the SHA-1 hash detect-secrets itself records. One secret
that several plugins flag (a Stripe key is also a high-entropy string and a
keyword's value) is one finding naming every detector.

detect-secrets keeps its settings in a process-wide singleton and keys results by
the path as given, relative to the current directory. So a scan holds a lock and
runs from the workspace directory: that way results and baseline entries match
what ``detect-secrets scan`` prints there, byte for byte.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from aidlc_review.sensors.context import (
    SensorContext,
    SensorError,
    ToolMissing,
    nothing_to_check,
    run_file_local,
)
from aidlc_review.sensors.results import CheckFinding, CheckResult, judged

_LOCK = threading.Lock()
POOL_FROM = 64  # below this many files a process pool costs more than it saves
MAX_FILE_BYTES = 2 * 1024 * 1024  # the manifest's runner option max_file_bytes overrides it


def run(ctx: SensorContext) -> CheckResult:
    if not ctx.files:
        return nothing_to_check(ctx)
    try:
        from detect_secrets import SecretsCollection
        from detect_secrets.__version__ import VERSION
        from detect_secrets.settings import default_settings, get_settings, transient_settings
    except ImportError:
        raise ToolMissing("detect-secrets is not installed") from None
    too_large = _too_large(ctx)
    ctx.files = [f for f in ctx.files if f not in too_large]
    if not ctx.files:
        return judged(
            ctx.name, list(too_large.values()), "detect-secrets scan (skipped: too large)"
        )
    baseline_name = str(ctx.option("baseline", ".secrets.baseline"))
    baseline = _read_baseline(ctx.workspace, baseline_name)
    known = _baseline_secrets(baseline)

    with (
        _LOCK,
        _inside(ctx.workspace),
        _settings(baseline, baseline_name, default_settings, transient_settings),
    ):
        settings_json = get_settings().json()

        def check(batch: list[str]) -> dict[str, list[CheckFinding]]:
            collection = SecretsCollection()
            if len(batch) >= POOL_FROM:
                collection.scan_files(*batch)
            else:
                for name in batch:
                    collection.scan_file(name)
            return _findings(ctx, collection)

        found = run_file_local(ctx, (VERSION, settings_json), "detect-secrets", [], check)
    ctx.secrets_seen = bool(found)  # baselined ones too: they are still in the source
    fresh = merge_detectors(ctx, [f for f in found if (f.path, f.rule, _hash_of(f)) not in known])
    fresh += too_large.values()
    return judged(
        ctx.name,
        fresh,
        f"detect-secrets scan -- <{len(ctx.files)} files>",
        tool="detect-secrets",
        tool_version=VERSION,
    )


def _too_large(ctx: SensorContext) -> dict[str, CheckFinding]:
    """Files above the size limit are not scanned in process (a 50 MB file took minutes and
    gigabytes); each is a blocking "could not verify", never a silent pass."""
    limit = int(ctx.option("max_file_bytes", MAX_FILE_BYTES))
    found = {}
    for name in ctx.files:
        size = (ctx.workspace / name).stat().st_size
        if size > limit:
            message = f"too large to scan ({size} bytes, limit {limit}): could not verify"
            found[name] = ctx.finding(name, None, message, "too-large", "could-not-verify", "major")
    return found


def _findings(ctx: SensorContext, collection: Any) -> dict[str, list[CheckFinding]]:
    found: dict[str, list[CheckFinding]] = {}
    for filename, secret in collection:
        path = Path(filename).as_posix()
        message = f"{secret.type} (hashed secret {secret.secret_hash})"
        found.setdefault(path, []).append(
            ctx.finding(path, secret.line_number, message, secret.type, "secret", "critical")
        )
    return found


# detectors that flag the shape of a value rather than what it is: named after a specific one
GENERIC = ("Secret Keyword", "Base64 High Entropy String", "Hex High Entropy String")


def merge_detectors(ctx: SensorContext, hits: list[CheckFinding]) -> list[CheckFinding]:
    """One finding per secret (path, line, hash): its rule is the most specific detector and
    its message names every detector that flagged it.

    The per-detector hits stay what is cached and matched against the baseline, so a
    baseline written by ``detect-secrets scan`` keeps applying hit by hit.
    """
    groups: dict[tuple[str, int | None, str], list[str]] = {}
    for hit in hits:
        groups.setdefault((hit.path, hit.line, _hash_of(hit)), []).append(hit.rule or "")
    merged = []
    for (path, line, hashed), detectors in groups.items():
        named = sorted(set(detectors), key=_specific_first)
        single = f"{named[0]} (hashed secret {hashed})"
        message = single
        if len(named) > 1:
            message = f"{named[0]} (detectors: {', '.join(named)}; hashed secret {hashed})"
        # the identity is the one-detector wording: a plugin more or less keeps the finding's ID
        merged.append(
            ctx.finding(path, line, message, named[0], "secret", "critical", identity=single)
        )
    return merged


def _specific_first(detector: str) -> tuple[int, str]:
    return (GENERIC.index(detector) + 1 if detector in GENERIC else 0, detector)


def _hash_of(finding: CheckFinding) -> str:
    return finding.message.rsplit("hashed secret ", 1)[-1].rstrip(")")


def _read_baseline(workspace: Path, name: str) -> dict[str, Any] | None:
    path = workspace / name
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SensorError(f"{name}: unreadable detect-secrets baseline: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("results", {}), dict):
        raise SensorError(f"{name}: not a detect-secrets baseline (no 'results' object)")
    return data


def _baseline_secrets(baseline: dict[str, Any] | None) -> set[tuple[str, str, str]]:
    """(path, type, hashed secret) of every secret the baseline already records."""
    if not baseline:
        return set()
    known = set()
    for filename, items in baseline.get("results", {}).items():
        for item in items if isinstance(items, list) else []:
            if isinstance(item, dict):
                known.add(
                    (
                        Path(filename).as_posix(),
                        str(item.get("type")),
                        str(item.get("hashed_secret")),
                    )
                )
    return known


@contextlib.contextmanager
def _inside(directory: Path) -> Iterator[None]:
    before = os.getcwd()
    os.chdir(directory)
    try:
        yield
    finally:
        os.chdir(before)


@contextlib.contextmanager
def _settings(
    baseline: dict[str, Any] | None, name: str, default_settings: Any, transient_settings: Any
) -> Iterator[None]:
    """The baseline's plugins and filters if any (as ``scan --baseline``), else the defaults."""
    if baseline is None or "plugins_used" not in baseline:
        with default_settings():
            yield
        return
    config = {key: baseline[key] for key in ("plugins_used", "filters_used") if key in baseline}
    try:
        context = transient_settings(config)
        settings = context.__enter__()
    except (KeyError, TypeError, ValueError) as exc:
        raise SensorError(f"{name}: cannot use the baseline's settings: {exc}") from None
    try:
        settings.filters["detect_secrets.filters.common.is_baseline_file"] = {"filename": name}
        yield
    finally:
        context.__exit__(None, None, None)
