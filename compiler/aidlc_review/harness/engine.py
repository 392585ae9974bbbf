"""Read a harness's dialect from the engine present in it: what its own files declare.

No table of versions: each vocabulary is read where the engine declares it, so an engine
this plugin has not seen is judged by what it says of itself.

- ``tools/aidlc-graph.ts``: that an engine is present at all, and its ``FIELD_ORDER`` (the
  keys of a compiled node: whether a reviewer's class is written into it);
- ``tools/aidlc-version.ts``: the version it declares, read by ``upstream.version`` (the one
  reading of it), named in messages;
- ``tools/aidlc-stage-schema.ts``: the stage keys (``REQUIRED_FIELDS`` + ``OPTIONAL_FIELDS``)
  and, in its ``StageFrontmatter`` interface, the literal values ``review_class`` and
  ``summary_confirmation`` take;
- ``tools/aidlc-lib.ts``: ``REVIEW_CLASSES``, the review ladder weakest first, which is what a
  scope's ``review_cap`` takes.

What the engine's schema lists but no declaration here spells out is left to the engine's own
compile (``None``: any scalar). What the engine does not know at all (2.5 has no review
classes) keeps the plugin's source vocabulary: then the key is the plugin's (a scope's cap is
read by the plugin's plans alone), or, on a stage, an unknown key the engine refuses.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from aidlc_review.harness import listing
from aidlc_review.harness.definitions.dialect import SOURCE, Dialect
from aidlc_review.upstream.version import VERSION_FILE, version_in

_WORDS = re.compile(r'"([^"]*)"')


def read_dialect(root: Path) -> Dialect:
    """The dialect of the harness at ``root`` (its ``.claude`` folder when installed)."""
    texts = {name: _read(root / name) for name in listing.ENGINE_DECLARATIONS}
    graph = texts[listing.ENGINE_MARKER]
    if graph is None:
        return SOURCE
    schema = texts["tools/aidlc-stage-schema.ts"] or ""
    ladder = _const_list(texts["tools/aidlc-lib.ts"] or "", "REVIEW_CLASSES")
    node_keys = _const_list(graph, "FIELD_ORDER") or ()
    keys = _stage_keys(schema)
    return Dialect(
        engine=version_in(texts[VERSION_FILE] or "") or "unknown",
        stage_keys=keys,
        stage_review_classes=_field_values(
            schema, "review_class", keys, SOURCE.stage_review_classes
        ),
        summary_confirmations=_field_values(
            schema, "summary_confirmation", keys, SOURCE.summary_confirmations
        ),
        review_caps=ladder or SOURCE.review_caps,
        review_ladder=ladder or SOURCE.review_ladder,
        node_review_class="review_class" in node_keys,
    )


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _const_list(source: str, name: str) -> tuple[str, ...] | None:
    """The strings of ``const NAME = [ ... ]`` (exported or not), in order."""
    start = source.find(f"const {name}")  # a plain find first: the engine's files are large
    if start < 0:
        return None
    pattern = re.compile(rf"\bconst {name}\s*=\s*\[(.*?)\]", re.S)
    block = pattern.match(source, start) or pattern.search(source)
    return tuple(_WORDS.findall(block.group(1))) if block else None


def _stage_keys(schema: str) -> frozenset[str] | None:
    required = _const_list(schema, "REQUIRED_FIELDS")
    optional = _const_list(schema, "OPTIONAL_FIELDS")
    if required is None or optional is None:
        return None
    return frozenset(required) | frozenset(optional)


def _field_values(
    schema: str, key: str, keys: frozenset[str] | None, plugin: tuple[Any, ...] | None
) -> tuple[Any, ...] | None:
    """The literal union ``key?: "a" | "b";`` of the schema's interface. A key the schema
    does not list keeps the plugin's vocabulary (the key check refuses it on a stage)."""
    if keys is not None and key not in keys:
        return plugin
    found = re.search(rf"^\s*{key}\??\s*:\s*((?:\"[^\"]*\"\s*\|?\s*)+);", schema, re.M)
    return tuple(_WORDS.findall(found.group(1))) if found else None
