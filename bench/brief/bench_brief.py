"""Reviewer-brief benchmark: size and build time for a 30-file unit (see README.md).

.venv/bin/python bench/brief/bench_brief.py --files 30 --repeat 3
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "compiler"))
sys.path.insert(0, str(ROOT))

from tests.review.workspace import make_workspace, write  # noqa: E402

from aidlc_review.review.agents.brief import reviewer_brief  # noqa: E402
from aidlc_review.review.inputs.paths import RecordPaths  # noqa: E402
from aidlc_review.review.inputs.unit import UnitContext  # noqa: E402
from aidlc_review.review.record.store import load_unit_document  # noqa: E402
from aidlc_review.review.run import engine  # noqa: E402
from aidlc_review.review.run.api import ReviewRequest, run_review  # noqa: E402
from aidlc_review.review.source.kept_source import keep_source  # noqa: E402

UNIT = "u1-orders"


def module(index: int, variant: int) -> str:
    """About 80 lines; ``variant`` changes every other function body (a large diff)."""
    lines = [f'"""Module {index}."""', ""]
    for n in range(12):
        factor = n + 1 + (variant if n % 2 else 0)
        lines += [
            "",
            f"def step_{n}(values: list[int]) -> int:",
            f'    """Step {n} of module {index}."""',
            f"    total = sum(v * {factor} for v in values)",
            f"    return total - {n}",
        ]
    return "\n".join(lines) + "\n"


def build(root: Path, files: int) -> Path:
    sources = {f"src/orders/mod_{i:02d}.py": module(i, 0) for i in range(files)}
    ws = make_workspace(root, sources)
    for rel in sources:
        write(ws / rel, module(int(rel[-5:-3]), 1))  # uncommitted: the unit's change
    return ws


def one_run(files: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_STATE_HOME"] = str(Path(tmp) / "state")
        os.environ["XDG_CACHE_HOME"] = str(Path(tmp) / "cache")
        ws = build(Path(tmp) / "ws", files)
        started = time.perf_counter()
        run_review(ReviewRequest(workspace=ws, unit=UNIT))
        first_pass = time.perf_counter() - started
        paths = RecordPaths.resolve(ws, UNIT)
        ctx = UnitContext.load(paths, None, "gated")
        doc = load_unit_document(paths)
        assert doc is not None
        for i in range(files):  # a "repair" touching every file
            write(ws / f"src/orders/mod_{i:02d}.py", module(i, 2))
        gathered = engine.gather(ctx, lambda _: None)
        started = time.perf_counter()
        brief = reviewer_brief(ctx, doc, gathered)
        build_time = time.perf_counter() - started
        os.environ["XDG_STATE_HOME"] = str(Path(tmp) / "state-empty")
        started = time.perf_counter()
        keep_source(gathered.frozen, ws)  # what each pass now adds: read, redact, store
        keep_time = time.perf_counter() - started
        pass1 = (paths.engine / "briefs" / "reviewer-attempt1-pass1.md").read_bytes()
        return {
            "first_pass_s": first_pass,
            "brief_build_s": build_time,
            "keep_source_s": keep_time,
            "brief_pass1_bytes": len(pass1),
            "brief_pass2_bytes": len(brief.encode()),
            "truncated": float("diff truncated" in brief),
        }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    subprocess.run(["git", "--version"], check=True, capture_output=True)
    runs = [one_run(args.files) for _ in range(args.repeat)]
    best = {key: min(r[key] for r in runs) for key in runs[0]}
    best["build_fraction_of_first_pass"] = best["brief_build_s"] / best["first_pass_s"]
    best["with_keep_fraction"] = (best["brief_build_s"] + best["keep_source_s"]) / best[
        "first_pass_s"
    ]
    print(json.dumps(best, indent=2))
    if args.json:
        args.json.write_text(json.dumps({"runs": runs, "best": best}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
