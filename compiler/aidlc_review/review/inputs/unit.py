"""Everything one review run needs to know about its unit, loaded once up front."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aidlc_review.errors import InvalidInput
from aidlc_review.harness.definitions.sensor import SensorManifest
from aidlc_review.harness.definitions.stage import CONSTRUCTION_MODES
from aidlc_review.harness.layout import HarnessLayout
from aidlc_review.harness.review_plan import ReviewedStage, refuse_broken, reviewed_stage
from aidlc_review.review.inputs.paths import STAGE, RecordPaths
from aidlc_review.review.inputs.project import Project
from aidlc_review.review.source.git_drift import resolve_base

MAX_UPSTREAM = 200


@dataclass(frozen=True)
class Knowledge:
    path: str
    text: str


@dataclass(frozen=True)
class UnitContext:
    paths: RecordPaths
    harness: Path
    stage: ReviewedStage
    sensors: list[SensorManifest]
    mode: str
    budget: int
    project: Project  # the workspace and its settings, read once for the run
    base_revision: str | None = None  # set by Bolt (the unit's branch point); else settings
    by: str | None = None  # who runs the review (--by); else git user.email, else the OS user

    @classmethod
    def load(
        cls,
        paths: RecordPaths,
        harness: Path | None,
        mode: str,
        base_revision: str | None = None,
        project: Project | None = None,
    ) -> UnitContext:
        """The unit's context from the harness's compiled review plan (nothing else of the
        harness is read: ``harness.review_plan``) and the workspace (``Project``, read
        here once for the whole run, unless ``project`` hands over the one already read)."""
        if mode not in CONSTRUCTION_MODES:
            raise InvalidInput(f"--mode {mode!r}: must be one of {', '.join(CONSTRUCTION_MODES)}")
        from aidlc_review.review.inputs.intent import upstream_harness

        layout = HarnessLayout.at(harness or upstream_harness(paths.workspace))
        if layout.installed and harness is not None:  # the workspace's own: checked on resolve
            refuse_broken(layout.root, STAGE)
        remedy = (
            f"install again: aidlc-review install --harness {layout.root}"
            if layout.installed
            else f"compile it: aidlc-review compile --harness {layout.root}"
        )
        stage = reviewed_stage(layout.root, STAGE, remedy)
        budget = stage.passes_for(mode) or 1
        # read once for the run; bad settings are refused here, before any write
        if project is None:
            project = Project.read(paths.workspace, paths.unit)
        project = project.for_unit(paths.unit)
        loaded_ctx = cls(
            paths, layout.root, stage, stage.sensors, mode, budget, project, base_revision
        )
        resolve_base(paths.workspace, loaded_ctx.configured_base())  # and a bad base
        _check_cache_home()  # and so is a cache home the sensors cannot use
        return loaded_ctx

    def persona(self) -> tuple[str, str]:
        """The lead agent's definition body and where it came from."""
        path = self.harness / "agents" / f"{self.stage.lead_agent}.md"
        shown = f"agents/{self.stage.lead_agent}.md"
        from aidlc_review.harness.frontmatter import (  # ruamel.yaml: only for a model's brief
            FrontmatterError,
            read_document,
        )

        try:
            return read_document(path, shown).body.strip(), shown
        except (OSError, FrontmatterError):
            return f"(no agent definition found at {shown})", shown

    def knowledge(self) -> list[Knowledge]:
        folder = self.harness / "knowledge" / self.stage.lead_agent
        if not folder.is_dir():
            return []
        return [
            Knowledge(p.relative_to(self.harness).as_posix(), p.read_text(encoding="utf-8").strip())
            for p in sorted(folder.glob("*.md"))
            if p.is_file()
        ]

    def upstream(self) -> list[str]:
        """Record artifacts the reviewer may read: this unit's construction record and inception."""
        paths = self.paths
        found: list[Path] = []
        if paths.unit_dir().is_dir():
            found += [
                p
                for p in paths.unit_dir().rglob("*")
                if p.is_file() and not p.is_relative_to(paths.stage_dir)
            ]
        inception = paths.record / "inception"
        if inception.is_dir():
            found += [p for p in inception.rglob("*") if p.is_file()]
        return sorted(paths.display(p) for p in found)[:MAX_UPSTREAM]

    def configured_base(self) -> str | None:
        """The base the unit is compared with: Bolt's branch point, else ``base-revision``."""
        return self.base_revision or self.project.unit_settings.base_revision

    def sensor_settings(self, at: str | None = None) -> dict[str, Any]:
        """Per-run sensor settings from the ``[tool.aidlc-review]`` table in force at the
        unit's base commit ``at`` (``Project.in_force``; the workspace's own without one):
        ``test-command``, ``coverage-threshold``, ``base-revision`` and the severity
        overrides; a ``[tool.aidlc-review.units.<unit>]`` table overrides them
        for one unit. ``settings["in_force"]`` says why the table is not the workspace's.
        """
        settings: dict[str, Any] = {"findings_path": str(self.paths.findings)}
        if at is not None:  # what the sensors honour (suppressions, baselines) stood there
            settings["judged_at"] = at
        in_force = self.project.in_force(at)
        if in_force.note:
            settings["in_force"] = in_force.note
        chosen = in_force.settings.for_unit(self.paths.unit)
        if in_force.settings.tools:  # the project's own declared tools, as at the base
            settings["tools"] = [tool.model_dump() for tool in in_force.settings.tools]
        for name, value in (
            ("coverage_command", chosen.test_command),
            ("coverage_threshold", chosen.coverage_threshold),
            ("base_revision", chosen.base_revision),
        ):
            if value is not None:
                settings[name] = value
        if chosen.severity is not None:  # the rule table's overrides (docs/severity.md)
            settings["severity"] = chosen.severity.for_sensors()
        practices = self.paths.record / "inception" / "practices-discovery" / "team-practices.md"
        if practices.is_file():  # the dependencies sensor reads its approvals at the base
            settings["team_practices"] = str(practices)
        return settings

    def excluded(self) -> list[Path]:
        """What is never application source: the record dir and the harness."""
        return [self.paths.record, self.harness]


def _check_cache_home() -> None:
    from aidlc_review.dirs import ensure_cache_dir
    from aidlc_review.sensors.cache import default_cache_dir

    ensure_cache_dir(default_cache_dir())
