"""Loading only the sensor manifests of a harness (``sensors/aidlc-<id>.md``).

The sensors commands need nothing else, so they neither pay for nor depend on
the rest of the harness (stages, scopes) being valid.
"""

from __future__ import annotations

import difflib
from pathlib import Path

from aidlc_review.diagnostics import Diagnostic
from aidlc_review.errors import InvalidInput, ValidationFailed
from aidlc_review.harness.definitions.sensor import SensorManifest
from aidlc_review.harness.layout import HarnessLayout
from aidlc_review.harness.loader import SENSOR_KEYS, load_definition


def load_sensor_manifests(harness: Path | None) -> list[SensorManifest]:
    """Every sensor manifest of the harness (None = this project), validated; all errors at once."""
    layout = HarnessLayout.at(harness)
    problems: list[Diagnostic] = []
    manifests: list[SensorManifest] = []
    for path, display in layout.sensor_files():
        loaded = load_definition(path, display, SensorManifest, SENSOR_KEYS, problems)
        if loaded:
            manifest, doc = loaded
            stem = path.stem.removeprefix("aidlc-")
            if manifest.id != stem:
                problems.append(
                    Diagnostic(
                        display,
                        doc.line_of(("id",)),
                        "id",
                        f"{manifest.id!r} does not match the file name {stem!r}",
                    )
                )
            manifests.append(manifest)
    if problems:
        raise ValidationFailed(problems)
    return manifests


def pick_manifests(manifests: list[SensorManifest], ids: list[str] | None) -> list[SensorManifest]:
    """The manifests named by ``ids`` (all when None); an unknown id is bad input."""
    if not ids:
        return manifests
    known = {m.id: m for m in manifests}
    for wanted in ids:
        if wanted not in known:
            close = difflib.get_close_matches(wanted, sorted(known), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise InvalidInput(
                f"unknown sensor {wanted!r}{hint}; known: {', '.join(sorted(known))}"
            )
    return [m for m in manifests if m.id in ids]
