"""Runner name -> "module:function", resolved only when that sensor runs (fast CLI start)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aidlc_review.sensors.context import SensorContext
    from aidlc_review.sensors.results import CheckResult

Runner = Callable[["SensorContext"], "CheckResult"]

RUNNERS: dict[str, str] = {
    "formatter": "aidlc_review.sensors.formatter:run",
    "secret-scan": "aidlc_review.sensors.secret_scan:run",
    "coverage": "aidlc_review.sensors.coverage_runner:run",
    "linter": "aidlc_review.sensors.lint:run",
    "type-check": "aidlc_review.sensors.type_check:run",
    "findings-schema": "aidlc_review.sensors.findings_schema:run",
    "security": "aidlc_review.sensors.security:run",
    "dependencies": "aidlc_review.sensors.dependencies:run",
}

# Runners that look at each file on its own, so their results can be cached per file.
FILE_LOCAL = frozenset({"formatter", "secret-scan", "linter", "security"})
# Runners that run the project's own code (its tests). They run one at a time after the
# others, with the machine to themselves: a test suite's timing is the project's business,
# and sharing the cores with mypy could fail a test that passes on its own.
RUNS_PROJECT_CODE = frozenset({"coverage"})


def resolve_runner(name: str) -> Runner | None:
    target = RUNNERS.get(name)
    if target is None:
        return None
    module_name, _, function = target.partition(":")
    module = importlib.import_module(module_name)
    runner: Runner = getattr(module, function)
    return runner
