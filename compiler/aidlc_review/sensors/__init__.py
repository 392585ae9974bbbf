"""Deterministic checks on a unit's claimed source: one runner per sensor, one registry."""

from __future__ import annotations

from aidlc_review.sensors.api import run_sensors
from aidlc_review.sensors.results import CheckFinding, CheckResult

__all__ = ["CheckFinding", "CheckResult", "run_sensors"]
