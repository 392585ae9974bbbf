"""A unit's ``source-manifest.json`` as the engine checks it (docs/upstream-newer.md):
upstream's code-generation writes it in the plugin's own schema; an engine that validates
manifests itself is the authority of their schema, so one carrying fields the plugin does
not know is read by the fields the schema names, every claim still checked, the review
bound to the bytes as written. Where the engine does not validate manifests, the plugin's
strict reading refuses unknown fields, as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aidlc_review.errors import InvalidInput
from aidlc_review.review.inputs.source_manifest import read_source_manifest
from aidlc_review.upstream.manifest import engine_manifest

# the newer logger's call, as upstream spells it (core/tools/aidlc-log.ts)
CHECKS_MANIFESTS = "    const manifest = readUnitSourceManifest(\n      pd,\n"


def _project(root: Path, checks_manifests: bool) -> Path:
    tools = root / ".claude" / "tools"
    tools.mkdir(parents=True)
    (tools / "aidlc-graph.ts").write_text("// the engine's graph tool\n")
    (tools / "aidlc-log.ts").write_text(CHECKS_MANIFESTS if checks_manifests else "// log\n")
    (root / "src").mkdir()
    (root / "src" / "a.py").write_text("A = 1\n")
    return root


def _manifest(root: Path, document: dict) -> Path:
    path = root / "aidlc-docs/construction/units/u1/code-generation/source-manifest.json"
    path.parent.mkdir(parents=True)
    path.write_bytes(json.dumps(document).encode())
    return path


WITH_MORE = {  # fields no schema documents today: a later engine's, inferred
    "stage": "code-generation",
    "unit": "u1",
    "version": 1,
    "writes": [{"path": "src/a.py", "sha256": "0" * 64}],
    "recorded_by": "aidlc-log.ts",
}


def test_an_engine_checked_manifest_with_more_fields_is_read_by_its_schemas_fields(tmp_path):
    project = _project(tmp_path, checks_manifests=True)
    path = _manifest(project, WITH_MORE)

    manifest = read_source_manifest(path, project)

    assert [claim.path for claim in manifest.claims] == ["src/a.py"]
    assert manifest.unit == "u1"
    assert manifest.raw == path.read_bytes()  # the review binds the bytes as written


def test_the_same_manifest_where_the_engine_checks_none_is_refused_as_before(tmp_path):
    project = _project(tmp_path, checks_manifests=False)
    path = _manifest(project, WITH_MORE)

    with pytest.raises(InvalidInput, match="recorded_by"):
        read_source_manifest(path, project)


def test_an_engine_checked_manifest_still_has_every_claim_checked(tmp_path):
    project = _project(tmp_path, checks_manifests=True)
    path = _manifest(project, {**WITH_MORE, "writes": [{"path": "../outside.py", "mode": "w"}]})

    with pytest.raises(InvalidInput, match=r"\$\.writes\[0\]\.path"):
        read_source_manifest(path, project)


def test_a_manifest_in_the_schema_is_left_to_the_plugins_reader(tmp_path):
    project = _project(tmp_path, checks_manifests=True)
    plain = {"stage": "code-generation", "unit": "u1", "version": 1, "writes": [{"path": "x"}]}

    assert engine_manifest(json.dumps(plain).encode(), project) is None
    assert engine_manifest(b"not json", project) is None
