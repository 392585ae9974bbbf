"""Block on the change: which open findings the unit's change owns, from the diff.

With a base the unit was given (``--base``, Bolt's branch point, ``base-revision``), a
sensor finding on lines the unit did not change, and reported on the base's bytes too
(``at_base``: the same line-independent fingerprint), is *pre-existing*: reported apart,
never blocking. One the base's bytes do not have is the change's, wherever it shows.
Secrets and critical security findings block wherever they are (a
secret in the history is leaked already), so does a check that could not look at a
file (it could be hiding one), and so does what no line can place: the
reviewer's findings (judgment on the change), the runtime's, a finding of the whole
unit. ``filter-mode`` in ``[tool.aidlc-review]`` says which lines count, as reviewdog's
filter modes do: ``added`` (default: the added or changed lines), ``diff_context``
(those and the unchanged lines around them in the diff), ``file`` (any line of a
changed file), ``nofilter`` (every line: nothing is pre-existing). Without a base
nothing is pre-existing.

The classification is never read back from a document: every gate derives it again
(``classify``) from the diff of the claimed files against the sealed baseline's base.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final, Literal

from aidlc_review.review.findings.defects import NOT_A_DEFECT, is_secret
from aidlc_review.review.record.models import Finding
from aidlc_review.review.source.baseline import Baseline

if TYPE_CHECKING:
    from aidlc_review.review.inputs.project import Project
    from aidlc_review.review.inputs.unit import UnitContext

FilterMode = Literal["added", "diff_context", "file", "nofilter"]
FILTER_MODES: Final = ("added", "diff_context", "file", "nofilter")
DEFAULT_MODE: Final[FilterMode] = "added"
DIFF_CONTEXT: Final = 3  # lines around a change in ``diff_context``, as git diff shows them
GIT_TIMEOUT: Final = 120.0
SETTINGS_FILES: Final = (".aidlc-review.toml", "pyproject.toml", "package.json")  # settings


@dataclass(frozen=True)
class Change:
    """What the unit changed since its base: the added or changed lines per claimed file."""

    base: str
    mode: FilterMode
    lines: Mapping[str, frozenset[int]]
    # the fingerprints the sensors report on the base's bytes (``at_base``); None: unknown,
    # and then nothing is proven pre-existing
    at_base: frozenset[str] | None = None

    def owns(self, finding: Finding) -> bool:
        """Is the finding the change's (it blocks as usual), or pre-existing? Pre-existing
        needs both: off the lines the unit changed, and reported on the base's bytes."""
        if self.mode == "nofilter" or not _placeable(finding):
            return True
        if self.at_base is None or finding.fingerprint not in self.at_base:
            return True  # the change made it, wherever it shows
        changed = self.lines.get(finding.path, frozenset())
        if not changed:
            return False  # a file the unit did not change
        if self.mode == "file" or not finding.locations:
            return True  # a line-less finding on a changed file: the file is the change's
        reach = DIFF_CONTEXT if self.mode == "diff_context" else 0
        return any(
            line in changed
            for place in finding.locations
            for line in range(place.line - reach, (place.end_line or place.line) + reach + 1)
        )


def _placeable(finding: Finding) -> bool:
    """Only a sensor finding on a file, neither a secret nor critical security, can be
    pre-existing."""
    if finding.source != "sensor" or not finding.path:
        return False
    if is_secret(finding.rule, finding.check) or _unverified(finding):
        return False
    return not (finding.severity == "critical" and finding.category == "security")


def _unverified(finding: Finding) -> bool:
    """A check that could not look at a file says nothing about who put what there."""
    rule = finding.rule or ""
    return (
        rule in NOT_A_DEFECT
        or rule.endswith("/unverified")
        or "could not verify" in finding.finding
    )


def classify(findings: Iterable[Finding], change: Change | None) -> list[Finding]:
    """The findings with ``open``/``pre-existing`` derived from ``change`` (None: no base:
    every unresolved finding is open). Whatever a document said is overwritten."""
    classified = []
    for finding in findings:
        if finding.status == "resolved":
            classified.append(finding)
            continue
        status = "open" if change is None or change.owns(finding) else "pre-existing"
        classified.append(
            finding if finding.status == status else finding.model_copy(update={"status": status})
        )
    return classified


def filter_mode(workspace: Path, unit: str | None, project: Project | None = None) -> FilterMode:
    """The unit's ``filter-mode`` in the workspace's own table: as ``project`` (the run's,
    read once) has it, else read now."""
    if project is None:
        project = _read_project(workspace, unit)
    return project.for_unit(unit).unit_settings.filter_mode or DEFAULT_MODE


def _read_project(workspace: Path, unit: str | None) -> Project:
    from aidlc_review.review.inputs.project import Project

    return Project.read(workspace, unit)


def change_since(
    workspace: Path,
    base: str | None,
    files: Iterable[str],
    mode: FilterMode,
    ctx: UnitContext | None = None,
    project: Project | None = None,
) -> Change | None:
    """The change of the claimed ``files`` since ``base`` (git diff of the working tree, and
    what the sensors report on the base's bytes: ``at_base``); None without a base, or when
    git cannot tell (then nothing is pre-existing). ``ctx``: the unit's sensors and settings
    (else the workspace's own harness and ``project``'s settings, read now without one)."""
    if base is None:
        return None
    from aidlc_review.sensors.changed_lines import changed_lines
    from aidlc_review.sensors.context import SensorError

    try:
        lines = changed_lines(workspace, base, sorted(files), GIT_TIMEOUT)
    except (SensorError, OSError):
        return None
    if any(lines.get(name) for name in SETTINGS_FILES):
        # the unit changed the settings that say what its change is (base-revision,
        # filter-mode): a change may not decide which of its own findings are old
        return None
    if mode == "nofilter":
        return Change(base, mode, {path: frozenset(found) for path, found in lines.items()})
    from aidlc_review.review.findings.at_base import findings_at_base

    if ctx is None:
        ctx = _workspace_context(workspace, project)
    prints = findings_at_base(ctx, base, files) if ctx is not None else None
    return Change(base, mode, {path: frozenset(found) for path, found in lines.items()}, prints)


def _workspace_context(workspace: Path, project: Project | None) -> UnitContext | None:
    """The sensors and settings a gate judges the base with when no pass handed them over
    (the settings: ``project``'s when the caller read it already)."""
    from aidlc_review.errors import AidlcError
    from aidlc_review.review.inputs.paths import RecordPaths
    from aidlc_review.review.inputs.unit import UnitContext

    try:
        paths = RecordPaths.resolve(workspace, None)
        return UnitContext.load(paths, None, "gated", project=project)
    except AidlcError:
        return None


def unit_change(
    workspace: Path,
    unit: str | None,
    baseline: Baseline | None,
    files: Iterable[str],
    ctx: UnitContext | None = None,
) -> Change | None:
    """The change findings are filtered by: against the sealed baseline's base, only when
    that base was given (HEAD taken by default is no base: today's behaviour)."""
    if baseline is None or not baseline.base_given:
        return None
    project = ctx.project if ctx is not None else _read_project(workspace, unit)
    mode = filter_mode(workspace, unit, project)
    return change_since(workspace, baseline.base, files, mode, ctx, project)


def configured_change(workspace: Path, unit: str | None, files: Iterable[str]) -> Change | None:
    """The change against the workspace's own ``base-revision`` (what a machine that did
    not seal the record can know of its base); None when none is set."""
    from aidlc_review.review.source.git_drift import resolve_base

    project = _read_project(workspace, unit)  # once: the base and the filter mode
    chosen = project.unit_settings
    if chosen.base_revision is None:
        return None
    base = resolve_base(workspace, chosen.base_revision)
    mode = filter_mode(workspace, unit, project)
    return change_since(workspace, base, files, mode, project=project)
