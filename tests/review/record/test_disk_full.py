"""A full disk while the record is written: exit 2 naming the path, no traceback, and the
record of the last pass stays exactly as it was (nothing half-written, nothing lost).

The disk is a real one: a 4 MiB tmpfs, mounted in a user and mount namespace of the test's
own (``unshare``), filled to its last byte before the second pass runs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from tests.review.workspace import (
    CLEAN,
    LINT_ERROR,
    UNIT,
    every_file_under,
    make_workspace,
    review_args,
)

FILL_AND_REVIEW = """
set -e
mount -t tmpfs -o size=4m tmpfs "$FULL"
cp -a "$WS" "$FULL/ws"
printf '%s' "$REPAIRED" > "$FULL/ws/src/orders/calc.py"
dd if=/dev/zero of="$FULL/filler" bs=4k 2>/dev/null || true
set +e
"$PY" -m aidlc_review review run --workspace "$FULL/ws" --unit "$UNIT" \
  >"$OUT/stdout" 2>"$OUT/stderr"
echo $? > "$OUT/rc"
rm -f "$FULL/filler"
cp -a "$FULL/ws/aidlc-docs" "$OUT/docs"
"""


def namespaced(script: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    unshare = shutil.which("unshare")
    if unshare is None:
        pytest.skip("needs unshare (util-linux) to mount a small tmpfs of the test's own")
    return subprocess.run(
        [unshare, "--user", "--map-root-user", "--mount", "sh", "-c", script],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_full_disk_is_exit_2_naming_the_path_and_the_last_record_is_kept(tmp_path: Path):
    ws = make_workspace(tmp_path / "ws", {"src/orders/calc.py": LINT_ERROR})
    assert main(review_args(ws)) == 1  # pass 1: NOT-READY, recorded
    docs = ws / "aidlc-docs"
    before = {Path(p).relative_to(docs): data for p, data in every_file_under(docs).items()}
    full, out = tmp_path / "full", tmp_path / "out"
    full.mkdir()
    out.mkdir()

    ran = namespaced(
        FILL_AND_REVIEW,
        {
            "FULL": str(full),
            "WS": str(ws),
            "OUT": str(out),
            "PY": sys.executable,
            "UNIT": UNIT,
            "REPAIRED": CLEAN,
        },
    )

    assert ran.returncode == 0, ran.stderr
    stderr = (out / "stderr").read_text()
    assert (out / "rc").read_text().strip() == "2", stderr
    assert "No space left on device" in stderr and str(full / "ws") in stderr, stderr
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr
    docs_after = out / "docs"
    after = {Path(p).relative_to(docs_after): d for p, d in every_file_under(docs_after).items()}
    assert after == before, "the last pass's record is kept byte for byte, no temporary left"


CACHE_HOME_FULL = """
set -e
mount -t tmpfs -o size=4m tmpfs "$FULL"
mkdir "$FULL/cache"
dd if=/dev/zero of="$FULL/filler" bs=4k 2>/dev/null || true
set +e
XDG_CACHE_HOME="$FULL/cache" "$PY" -m aidlc_review review run --workspace "$WS" --unit "$UNIT" \
  >"$OUT/stdout" 2>"$OUT/stderr"
echo $? > "$OUT/rc"
"""


def test_a_full_cache_home_costs_time_never_the_verdict(tmp_path: Path):
    ws = make_workspace(tmp_path / "ws", {"src/orders/calc.py": LINT_ERROR})
    full, out = tmp_path / "full", tmp_path / "out"
    full.mkdir()
    out.mkdir()

    ran = namespaced(
        CACHE_HOME_FULL,
        {"FULL": str(full), "WS": str(ws), "OUT": str(out), "PY": sys.executable, "UNIT": UNIT},
    )

    assert ran.returncode == 0, ran.stderr
    stderr = (out / "stderr").read_text()
    assert (out / "rc").read_text().strip() == "1", stderr  # NOT-READY, as with space
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr
    report = ws / "aidlc-docs/construction" / UNIT / "code-review/code-review.md"
    assert "F401" in report.read_text()
