"""Deterministic checks on a unit's claimed source: one runner per sensor, one registry.

The names below are imported when first asked for, not with the package: a module of the
package (``sensors.redact``, ``sensors.cache``) is imported on paths that run no sensor (a
gate answered from its memo), and ``sensors.api`` pulls in every runner.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from aidlc_review.sensors.api import run_sensors
    from aidlc_review.sensors.results import CheckFinding, CheckResult

__all__ = ["CheckFinding", "CheckResult", "run_sensors"]
_HOME = {
    "run_sensors": "aidlc_review.sensors.api",
    "CheckFinding": "aidlc_review.sensors.results",
    "CheckResult": "aidlc_review.sensors.results",
}


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(_HOME[name]), name)
    globals()[name] = value
    return value
