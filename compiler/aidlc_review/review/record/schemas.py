"""The committed JSON Schemas, generated from the models.

Regenerate after changing ``review/record/models.py``::

    .venv/bin/python -m aidlc_review.review.record.schemas
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from aidlc_review.fsio import dump_json, write_atomic
from aidlc_review.harness.review_plan import ReviewPlan
from aidlc_review.review.inputs.source_manifest import ManifestFile
from aidlc_review.review.inputs.workspace_settings import WorkspaceSettings
from aidlc_review.review.record.models import FindingsDocument, ReviewerAnswer
from aidlc_review.schemas import ANSWER_SCHEMA, FINDINGS_SCHEMA, SCHEMA_DIR, load_schema

__all__ = ["ANSWER_SCHEMA", "FINDINGS_SCHEMA", "SCHEMA_DIR", "drifted", "load_schema"]
REGENERATE = ".venv/bin/python -m aidlc_review.review.record.schemas"
MANIFEST_SCHEMA = "source-manifest.schema.json"
SETTINGS_SCHEMA = "aidlc-review-settings.schema.json"  # [tool.aidlc-review] of pyproject.toml
PLAN_SCHEMA = "review-plan.schema.json"  # tools/data/review-plan.json, from compile/install
_SOURCES: dict[str, type[BaseModel]] = {
    PLAN_SCHEMA: ReviewPlan,
    FINDINGS_SCHEMA: FindingsDocument,
    ANSWER_SCHEMA: ReviewerAnswer,
    MANIFEST_SCHEMA: ManifestFile,
    SETTINGS_SCHEMA: WorkspaceSettings,
}
_IDS = {name: f"https://aidlc-code-review.invalid/schemas/{name}" for name in _SOURCES}


def schema_texts() -> dict[str, str]:
    """Each schema file's exact text as the models define it today."""
    texts = {}
    for name, model in _SOURCES.items():
        schema = {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": _IDS[name],
            **model.model_json_schema(by_alias=True),
        }
        texts[name] = dump_json(schema)
    return texts


def drifted() -> list[str]:
    """Names of committed schema files that differ from the models."""
    return sorted(
        name
        for name, text in schema_texts().items()
        if not (SCHEMA_DIR / name).is_file()
        or (SCHEMA_DIR / name).read_text(encoding="utf-8") != text
    )


def write_schemas() -> list[Path]:
    written = []
    for name, text in schema_texts().items():
        write_atomic(SCHEMA_DIR / name, text)
        written.append(SCHEMA_DIR / name)
    return written


if __name__ == "__main__":
    for path in write_schemas():
        print(f"wrote {path}")
