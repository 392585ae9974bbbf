"""The first gate after a review replays the review's own sensor run: the sensor replay.

A gate recomputes (``review.record.recompute``): it runs the unit's sensors again on the
claimed bytes and merges what they report with the record. Right after a review, those
sensors already ran on those very bytes, in the pass. So the pass keeps each sensor's
result, sealed like every cached sensor result (``sensors.cache``: HMAC under this
machine's review key), under a key of everything that run was given and could read:

- the bytes of every file git can name in the workspace, except the review's own outputs
  (the unit's record folder and its engine folder: the pass writes them after its sensors
  ran; no replayed sensor judges them, the findings document's own check is never
  replayed);
- the review plan's compiled files, the files the sensors were given, their settings
  (the base, by the commit it names; the configuration at the base), the sensor's own
  definition, the interpreter, ``PATH`` and this package's version.

The pass keeps its results only when that key is the same before and after its sensors
ran (nothing changed under them). A gate that asks with the same key gets the very results
the pass got; the merge with the record, the verdict and every check on the record are
still the gate's own. Another byte, setting, sensor or plan is another key: the sensor
runs. An entry whose seal does not verify is a miss. Settings that keep the result cache
in memory (``{"cache": False}``) turn it off.

The review's own findings are not what the gate recomputes (the gate marks a reviewer
finding it did not re-examine, and merges with the recorded ledger rather than the
previous pass's), so the pass keeps the sensors' results, not its conclusion. Its sensors
are given what a gate gives them: the configured base (Bolt's branch point or
``base-revision``), else the commit the sealed stage-entry baseline names (HEAD at the
first pass; ``run.engine.gather``), so the replay answers with or without a configured base.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aidlc_review.harness.definitions.sensor import SensorManifest
from aidlc_review.review.inputs.paths import RecordPaths
from aidlc_review.review.record.proof_memo import (
    digest_of,
    plan_files,
    running_parts,
    seen_files,
)
from aidlc_review.sensors.results import CheckFinding, CheckResult

if TYPE_CHECKING:
    from aidlc_review.review.source.git_drift import Listing

LABEL = "sensor-replay/1"
NEVER_REPLAYED = frozenset({"findings-schema"})  # it judges the record the pass writes later


def run_and_keep(
    paths: RecordPaths,
    harness: Path,
    files: list[str],
    sensors: list[SensorManifest],
    settings: dict[str, Any],
    progress: Callable[[str], None] | None = None,
    listing: Listing | None = None,
) -> list[CheckResult]:
    """``run_sensors`` for a pass, keeping each result for the gates when nothing changed
    under the sensors while they ran. ``listing``: git's listing of the tree the pass took
    with nothing written since (the key after the run always lists the tree again)."""
    from aidlc_review.sensors import run_sensors

    before = inputs_digest(paths, harness, files, settings, listing)
    order = whole_program_first(sensors)
    ran = run_sensors(
        paths.workspace, files, [sensors[i] for i in order], settings=settings, progress=progress
    )
    by_index = dict(zip(order, ran, strict=True))
    results = [by_index[i] for i in range(len(sensors))]  # the plan's order, as given
    if before is not None and before == inputs_digest(paths, harness, files, settings):
        kept = {
            _key(before, m): r.to_json()
            for m, r in zip(sensors, results, strict=True)
            if m.id not in NEVER_REPLAYED
        }
        _store(kept)
    return results


def whole_program_first(sensors: list[SensorManifest]) -> list[int]:
    """The order a pass starts its sensors in (indexes into ``sensors``): the checks that
    read the whole program (the type checker) before those that look at each file on its
    own. Two static sensors run side by side (``sensors.api``), so the longest tool's
    seconds start first and the per-file checks fill the other worker around them; the
    results, their keys and the record keep the plan's order."""
    from aidlc_review.sensors.registry import FILE_LOCAL

    def per_file(i: int) -> bool:
        runner = sensors[i].runner
        return runner is not None and runner.name in FILE_LOCAL

    return sorted(range(len(sensors)), key=per_file)  # stable: the plan's order otherwise


def replayed_or_run(
    paths: RecordPaths,
    harness: Path,
    files: list[str],
    sensors: list[SensorManifest],
    settings: dict[str, Any],
) -> list[CheckResult]:
    """One result per sensor, in order: the pass's own where its key matches, else run now
    (the runners are imported only then)."""
    inputs = inputs_digest(paths, harness, files, settings)
    keys = {m.id: _key(inputs, m) for m in sensors if m.id not in NEVER_REPLAYED}
    known = _recall(list(keys.values())) if inputs is not None else {}
    found = {i: _restored(known[k]) for i, k in keys.items() if k in known}
    missing = [m for m in sensors if found.get(m.id) is None]
    ran = []
    if missing:
        from aidlc_review.review.source.git_drift import look_again
        from aidlc_review.sensors import run_sensors

        try:
            ran = run_sensors(paths.workspace, files, missing, settings=settings)
        finally:
            look_again()  # the tests may have written in the tree: the next listing is new
    fresh = {m.id: r for m, r in zip(missing, ran, strict=True)}
    return [found.get(m.id) or fresh[m.id] for m in sensors]


def inputs_digest(
    paths: RecordPaths,
    harness: Path,
    files: list[str],
    settings: dict[str, Any],
    listing: Listing | None = None,
) -> str | None:
    """The digest of what a sensor run reads and is given; None: no replay (outside git,
    or the result cache turned off)."""
    if settings.get("cache", True) is False:
        return None
    seen = seen_files(paths.workspace, _review_outputs(paths), listing)
    if seen is None:
        return None
    parts: list[Any] = [
        *running_parts(LABEL, paths.unit),
        seen,
        plan_files(paths.workspace, harness),
        sorted(files),
        _as_given(paths.workspace, settings),
    ]
    return digest_of(parts)


def _as_given(workspace: Path, settings: dict[str, Any]) -> dict[str, Any]:
    """The settings with the base named by the commit it names now (a pass is given the
    configured ``main``, a gate the sealed baseline's commit id: the same base when ``main``
    names that commit, before and after the pass's sensors ran and at the gate)."""
    from aidlc_review.errors import InvalidInput
    from aidlc_review.review.source.git_drift import resolve_base

    named = settings.get("base_revision")
    if not named:
        return settings
    try:
        return {**settings, "base_revision": resolve_base(workspace, str(named)) or named}
    except InvalidInput:
        return {**settings, "base_revision": ["unknown", named]}


def _review_outputs(paths: RecordPaths) -> tuple[str, ...]:
    """The folders the pass writes after its sensors ran, as workspace-relative prefixes."""
    out = []
    for folder in (paths.stage_dir, paths.engine):
        try:
            out.append(folder.resolve().relative_to(paths.workspace.resolve()).as_posix() + "/")
        except ValueError:
            continue  # ``--record`` outside the workspace: git does not list it
    return tuple(out)


def _key(inputs: str | None, sensor: SensorManifest) -> str:
    return LABEL + ":" + digest_of([inputs, sensor.model_dump(mode="json")])


def _restored(data: Any) -> CheckResult | None:
    """A kept result; None for an entry this version did not write (then the sensor runs)."""
    try:
        return CheckResult(
            name=data["name"],
            status=data["status"],
            reason=data["reason"],
            command=data["command"],
            duration_ms=data["duration_ms"],
            findings=tuple(CheckFinding.from_json(f) for f in data["findings"]),
            tool=data["tool"],
            tool_version=data["tool_version"],
            details=dict(data.get("details") or {}),
        )
    except (KeyError, TypeError, ValueError):
        return None


def _store(items: dict[str, Any]) -> None:
    from aidlc_review.sensors.cache import default_cache_dir, healthy_cache

    cache = healthy_cache(default_cache_dir())  # a broken one is the sensors' to report
    if cache is None:
        return
    try:
        cache.put_many(items)
    finally:
        cache.close()


def _recall(keys: list[str]) -> dict[str, Any]:
    from aidlc_review.sensors.cache import default_cache_dir, healthy_cache

    cache = healthy_cache(default_cache_dir())
    if cache is None:
        return {}
    try:
        return cache.get_many(keys)
    finally:
        cache.close()
