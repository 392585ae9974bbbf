"""A workspace with three units (the example service split by file), reviewed two ways."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from aidlc_review.cli.main import main
from aidlc_review.harness.layout import PROJECT_ROOT

EXAMPLE = PROJECT_ROOT / "examples" / "inventory-service"
CLAIMS = {
    "u1-ledger": ["src/inventory/ledger.py", "tests/test_ledger.py"],
    "u2-pricing": ["src/inventory/pricing.py"],
    "u3-http": ["src/inventory/__init__.py", "src/inventory/http.py", "tests/test_http.py"],
}


def three_unit_workspace(where: Path) -> Path:
    shutil.copytree(EXAMPLE, where)
    construction = where / "aidlc-docs" / "construction"
    original = construction / "u1-stock-ledger" / "code-generation"
    for unit, paths in CLAIMS.items():
        folder = construction / unit / "code-generation"
        shutil.copytree(original, folder)
        manifest = {
            "stage": "code-generation",
            "unit": unit,
            "version": 1,
            "writes": [{"path": p} for p in paths],
        }
        (folder / "source-manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    shutil.rmtree(construction / "u1-stock-ledger")
    return where


def review(workspace: Path, unit: str) -> None:
    assert main(["review", "run", "--workspace", str(workspace), "--unit", unit]) in (0, 1)


def findings_of(workspace: Path, unit: str) -> Path:
    return workspace / "aidlc-docs/construction" / unit / "code-review/code-review-findings.json"
