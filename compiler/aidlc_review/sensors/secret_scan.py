"""secret-scan: detect-secrets' own scanner over the claimed files, minus the base's baseline.

Nothing the change writes hides a secret: the ``.secrets.baseline`` and the allowlist
pragmas count as they stood at the unit's base (``base_text``, ``suppressions``). The scan
runs without detect-secrets' allowlist filter; a secret on a line whose pragma the change
added is reported like any other (critical, never waivable), naming the pragma.

The secret value is read by detect-secrets and never copied out: a finding keeps
the type, path, line and the SHA-1 hash detect-secrets itself records. One secret
that several plugins flag (a Stripe key is also a high-entropy string and a
keyword's value) is one finding naming every detector.

detect-secrets keeps its settings in a process-wide singleton and keys results by
the path as given, relative to the current directory. So a scan holds a lock and
runs from the workspace directory: that way results and baseline entries match
what ``detect-secrets scan`` prints there, byte for byte.

A scan has a time limit (runner option ``max_scan_seconds``, default 60): the wrong few
kilobytes keep detect-secrets' keyword detector busy for minutes. The scan runs in a
child forked under the lock (``sensors.deadline``), which reports each file as it is done;
at the limit it is killed, and every file it did not finish is a blocking "could not
verify" finding, never cached, never a pass.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from aidlc_review.sensors.base_text import base_commit, base_texts
from aidlc_review.sensors.context import (
    SensorContext,
    SensorError,
    ToolMissing,
    Unfinished,
    nothing_to_check,
    run_file_local,
)
from aidlc_review.sensors.deadline import WorkerFailed, no_fork, run_limited
from aidlc_review.sensors.results import CheckFinding, CheckResult, judged
from aidlc_review.sensors.suppressions import Suppressions

_LOCK = threading.Lock()
POOL_FROM = 64  # below this many files a process pool costs more than it saves
MAX_FILE_BYTES = 2 * 1024 * 1024  # the manifest's runner option max_file_bytes overrides it
MAX_SCAN_SECONDS = 60.0  # the runner option max_scan_seconds overrides it
ALLOWLIST_FILTER = "detect_secrets.filters.allowlist.is_line_allowlisted"
TIMED_OUT = "timed-out"  # the rule of a file the scan did not finish in time
# what the plugins and filters see in a typical source file, so their lazy caches are filled
WARM_UP = 'import os\n\nNAME = "warm-up"  # a comment\ntoken = os.environ["TOKEN"]\n'


def run(ctx: SensorContext) -> CheckResult:
    if not ctx.files:
        return nothing_to_check(ctx)
    try:
        with no_fork():  # a fork in another thread must not inherit it half-imported
            from detect_secrets.__version__ import VERSION
            from detect_secrets.settings import default_settings, get_settings, transient_settings
    except ImportError:
        raise ToolMissing("detect-secrets is not installed") from None
    seconds = _positive(ctx, "max_scan_seconds", MAX_SCAN_SECONDS)
    too_large = _too_large(ctx)
    ctx.files = [f for f in ctx.files if f not in too_large]
    if not ctx.files:
        return judged(
            ctx.name, list(too_large.values()), "detect-secrets scan (skipped: too large)"
        )
    baseline_name = str(ctx.option("baseline", ".secrets.baseline"))
    baseline = _read_baseline(ctx, baseline_name)
    known = _baseline_secrets(baseline)
    marks = Suppressions(
        ctx.workspace, ctx.settings, [s for tool in ctx.runner.tools for s in tool.suppressions]
    )

    with (
        _LOCK,
        _inside(ctx.workspace),
        _settings(baseline, baseline_name, default_settings, transient_settings),
    ):
        get_settings().filters.pop(ALLOWLIST_FILTER, None)  # the base's pragmas: below
        settings_json = get_settings().json()
        with no_fork():
            _warm_up(ctx.scratch)
        check = _limited_check(ctx, time.monotonic() + seconds, seconds)
        found = run_file_local(
            ctx, (VERSION, settings_json), "detect-secrets", [], check, marks.key
        )
    hits = [f for f in found if f.rule != TIMED_OUT]
    ctx.secrets_seen = bool(hits)  # baselined ones too: they are still in the source
    ctx.secrets_cleared = not found and not too_large  # every file scanned, none held one
    merged = merge_detectors(ctx, [f for f in hits if (f.path, f.rule, _hash_of(f)) not in known])
    fresh = _pragmas_at_base(marks, merged)
    fresh += [f for f in found if f.rule == TIMED_OUT]
    fresh += too_large.values()
    return judged(
        ctx.name,
        fresh,
        f"detect-secrets scan -- <{len(ctx.files)} files>",
        tool="detect-secrets",
        tool_version=VERSION,
    )


def _limited_check(
    ctx: SensorContext, deadline: float, seconds: float
) -> Callable[[list[str]], dict[str, list[CheckFinding]]]:
    """The per-batch scan, in a forked child that must finish by ``deadline``."""

    def check(batch: list[str]) -> dict[str, list[CheckFinding]]:
        try:
            done = run_limited(_scan_each, batch, max(0.0, deadline - time.monotonic()))
        except WorkerFailed as exc:
            raise SensorError(f"detect-secrets failed: {exc}") from None
        found = {batch[i]: _hit_findings(ctx, batch[i], hits) for i, hits in done.results.items()}
        if len(done.results) == len(batch):
            return found
        message = f"could not verify: secret scan exceeded {seconds:g} s"
        unchecked = {
            name: ctx.finding(name, None, message, TIMED_OUT, "could-not-verify", "major")
            for i, name in enumerate(batch)
            if i not in done.results
        }
        raise Unfinished(found, unchecked)

    return check


def _warm_up(scratch: Path) -> None:
    """Load the plugins, filters and their patterns here, once, so each forked scan inherits
    them: loaded in the child they cost about 30 ms a scan (a fixed, harmless text)."""
    from detect_secrets.core.secrets_collection import SecretsCollection

    sample = scratch / "warm-up.py"
    if not sample.is_file():
        sample.parent.mkdir(parents=True, exist_ok=True)
        sample.write_text(WARM_UP)
    SecretsCollection().scan_file(str(sample))


def _scan_each(names: Sequence[str]) -> Iterator[tuple[int, list[list[Any]]]]:
    """The child's work: each file's hits as soon as it is scanned (a pool for many files)."""
    if len(names) < POOL_FROM:
        yield from map(_scan_one, enumerate(names))
        return
    # the child is single-threaded, so forking its pool is safe; it inherits the settings
    with multiprocessing.get_context("fork").Pool() as pool:
        yield from pool.imap_unordered(_scan_one, enumerate(names))


def _scan_one(item: tuple[int, str]) -> tuple[int, list[list[Any]]]:
    from detect_secrets.core.secrets_collection import SecretsCollection

    index, name = item
    collection = SecretsCollection()
    collection.scan_file(name)
    return index, [[s.type, s.line_number, s.secret_hash] for _, s in collection]


def _hit_findings(ctx: SensorContext, path: str, hits: list[list[Any]]) -> list[CheckFinding]:
    return [
        ctx.finding(path, line, f"{kind} (hashed secret {hashed})", kind, "secret", "critical")
        for kind, line, hashed in hits
    ]


def _pragmas_at_base(marks: Suppressions, secrets: list[CheckFinding]) -> list[CheckFinding]:
    """The secrets an allowlist pragma at the base covers are dropped; one the change added
    covers nothing, and the finding names it."""
    by_file: dict[str, list[CheckFinding]] = {}
    for secret in secrets:
        by_file.setdefault(secret.path, []).append(secret)
    return [secret for found in marks.judge(by_file).values() for secret in found]


def _positive(ctx: SensorContext, option: str, default: float) -> float:
    value = ctx.option(option, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise SensorError(f"runner option {option}: must be a positive number, got {value!r}")
    return float(value)


def _too_large(ctx: SensorContext) -> dict[str, CheckFinding]:
    """Files above the size limit are not scanned in process (a 50 MB file took minutes and
    gigabytes); each is a blocking "could not verify", never a silent pass."""
    limit = int(_positive(ctx, "max_file_bytes", MAX_FILE_BYTES))
    found = {}
    for name in ctx.files:
        size = (ctx.workspace / name).stat().st_size
        if size > limit:
            message = f"too large to scan ({size} bytes, limit {limit}): could not verify"
            found[name] = ctx.finding(name, None, message, "too-large", "could-not-verify", "major")
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


def _read_baseline(ctx: SensorContext, name: str) -> dict[str, Any] | None:
    """The baseline as it stood at the unit's base (the workspace's own only where there is
    no base commit at all): a baseline the change writes or edits hides nothing."""
    commit = base_commit(ctx.workspace, ctx.settings)
    if commit is not None:
        text = base_texts(ctx.workspace, commit, [name])[name]
    else:
        path = ctx.workspace / name
        text = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else None
    if text is None:
        return None
    try:
        data = json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
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
