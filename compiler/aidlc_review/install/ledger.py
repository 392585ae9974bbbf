"""``tools/data/plugin-aidlc-review.json``: everything upstream has no field for.

One file, read by ``plan``, ``review`` and ``uninstall``: the review stage as
authored (who reviews, who repairs, passes per mode), the sensor id mapping, the
compiled gate plans per scope, the scopes a lead chose, and the install ledger:
every file added (with its sha256), every block inserted into a core stage, and
the stage numbers install moved.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from aidlc_review.typed_load import load_json

LEDGER_FILE = "plugin-aidlc-review.json"


class Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class AddedFile(Frozen):
    path: str
    sha256: str


class Insertion(Frozen):
    """Text install put into a core file: a fragment block, appended list lines, or the
    engine gate's lines in ``settings.json`` (``install.engine_hook``)."""

    path: str
    kind: Literal["fragment", "list-lines", "json-lines"]
    key: str  # the fragment's anchor, or the list key the lines were appended to
    text: str


class ReviewStage(Frozen):
    slug: str
    reviews: str
    reviewer: str
    repair_agent: str
    max_passes: dict[str, int]
    sensors: dict[str, str]  # installed id -> the plugin's own id
    dropped_consumes: list[str]


class Ledger(Frozen):
    version: Literal[1] = 1
    plugin: str
    plugin_version: str
    harness_dir: str
    stage: ReviewStage
    scopes: list[str]
    scopes_chosen: bool  # True once a lead changed them with ``scope add|remove``
    plans: dict[str, Any]
    added: list[AddedFile]
    inserted: list[Insertion]
    displaced_numbers: dict[str, str]


def sha256_text(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def ledger_path(harness: Path) -> Path:
    return harness / "tools" / "data" / LEDGER_FILE


def read_ledger(harness: Path) -> Ledger | None:
    """The harness's ledger, or None when the plugin is not installed there."""
    path = ledger_path(harness)
    return load_json(Ledger, path) if path.is_file() else None


def render_ledger(ledger: Ledger) -> str:
    return json.dumps(ledger.model_dump(mode="json"), indent=2, sort_keys=False) + "\n"
