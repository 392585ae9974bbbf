"""A unit's ``source-manifest.json`` as the engine checks it, turned into what the plugin's
reader takes (``review.inputs.source_manifest`` makes its ``SourceManifest`` of it).

Read in upstream's files (docs/upstream-newer.md; not run here): upstream's own
code-generation writes the manifest (its Step 5) in a strict schema, ``stage``, ``unit``
(absent at stage level), ``version: 1`` and ``writes[{path, repo?}]``, a trailing ``/`` for a
directory, which is the plugin's own schema; the engine validates it before it records a
review (``readUnitSourceManifest``). Where it lives is the unit's records folder
(``records.unit_records``: ``construction/units/<unit>/code-generation/`` in the newest
layout), which the review's paths already resolve.

An engine that validates manifests itself is the authority of their schema: a manifest it
wrote or accepted that carries fields the plugin does not know (none is documented today:
inferred for a later engine) is read by the fields the schema above names, every claim
checked exactly as the plugin checks its own; the unknown fields are never interpreted. The
bytes bound to the review stay the file's. Where the engine does not validate manifests,
the plugin's strict reading applies (unknown fields refused), as before.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from aidlc_review.upstream import names
from aidlc_review.upstream.features import EngineFeatures

DOCUMENT_KEYS = ("stage", "unit", "version", "writes")  # upstream's strict schema
WRITE_KEYS = ("path", "repo")


def engine_manifest(raw: bytes, workspace: Path) -> bytes | None:
    """The manifest ``raw`` by the fields upstream's schema names, when it carries more and
    the engine in ``workspace`` validates manifests itself; None otherwise (the plugin's
    strict reader reads ``raw`` as it is). The caller binds the review to ``raw``."""
    data = _document(raw)
    if data is None or not _has_extra_fields(data):
        return None
    if not EngineFeatures.read(workspace / names.HARNESS_DIR).engine_source_manifest:
        return None
    known = {key: data[key] for key in DOCUMENT_KEYS if key in data}
    writes = data.get("writes")
    known["writes"] = (
        [_known_write(entry) for entry in writes] if isinstance(writes, list) else writes
    )
    return json.dumps(known).encode()


def _known_write(entry: Any) -> Any:
    if not isinstance(entry, dict):
        return entry  # the strict reader names what is wrong with it
    return {key: entry[key] for key in WRITE_KEYS if key in entry}


def _document(raw: bytes) -> dict[str, Any] | None:
    from aidlc_review.typed_load import loose_json

    data = loose_json(raw)  # not JSON or too deep: None, and the strict reader names it
    return data if isinstance(data, dict) else None


def _has_extra_fields(data: dict[str, Any]) -> bool:
    if set(data) - set(DOCUMENT_KEYS):
        return True
    writes = data.get("writes")
    entries = writes if isinstance(writes, list) else []
    return any(isinstance(e, dict) and set(e) - set(WRITE_KEYS) for e in entries)
