"""The committed JSON Schemas shipped as package data, and how to read one.

Below both the review and the sensors: the review generates these files from its
models (``review/record/schemas.py``) and the findings-schema sensor validates against
them, so neither has to import the other to find them.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

SCHEMA_DIR = Path(__file__).resolve().parent
FINDINGS_SCHEMA = "code-review-findings.schema.json"
ANSWER_SCHEMA = "reviewer-answer.schema.json"


@cache
def load_schema(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((SCHEMA_DIR / name).read_text(encoding="utf-8"))
    return data
