"""The kept-source store is bounded, and a missing entry only costs a brief its diff.

Entries unused for 30 days go when a pass keeps source (at most once a day per store);
the whole store is capped, oldest first. Reusing an entry refreshes it.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import time
from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from aidlc_review.review.source.freeze import Frozen, source_fingerprint
from aidlc_review.review.source.kept_prune import MARKER, prune
from aidlc_review.review.source.kept_source import keep_source, kept_source, store_dir
from tests.review.workspace import (
    UNIT,
    make_workspace,
    review_args,
    script_agent,
    write,
)

DAY = 24 * 3600


def frozen(ws: Path, files: dict[str, str]) -> Frozen:
    """Write ``files`` into ``ws`` and freeze them as a pass would."""
    digests = {}
    for rel, text in files.items():
        write(ws / rel, text)
        digests[rel] = "sha256:" + hashlib.sha256(text.encode()).hexdigest()
    return Frozen("sha256:m", digests, source_fingerprint(b"m", digests))


def age(days: float, *paths: Path) -> None:
    """Make the store's files (or ``paths``) look last used ``days`` ago."""
    when = time.time() - days * DAY
    for path in paths or [p for p in store_dir().rglob("*") if p.is_file()]:
        os.utime(path, (when, when))


def on_disk(snapshot: Frozen) -> bool:
    hexdigest = snapshot.fingerprint.removeprefix("sha256:")
    return (store_dir() / "snapshots" / f"{hexdigest}.json").is_file()


def texts(snapshot: Frozen) -> dict[str, str | None] | None:
    kept = kept_source(snapshot.fingerprint)
    return None if kept is None else {rel: k.text for rel, k in kept.items()}


def test_an_entry_unused_for_30_days_goes_when_a_pass_keeps_source(tmp_path: Path) -> None:
    old = frozen(tmp_path, {"a.py": "A = 1\n"})
    keep_source(old, tmp_path)
    age(31)
    new = frozen(tmp_path, {"b.py": "B = 2\n"})
    keep_source(new, tmp_path)
    assert texts(old) is None
    assert texts(new) == {"b.py": "B = 2\n"}
    assert sorted(p.parent.name for p in store_dir().rglob("*.json")) == ["snapshots"]


def test_an_entry_read_or_kept_again_is_used_again(tmp_path: Path) -> None:
    read = frozen(tmp_path, {"a.py": "A = 1\n"})
    again = frozen(tmp_path, {"c.py": "C = 3\n"})
    keep_source(read, tmp_path)
    keep_source(again, tmp_path)
    age(31)
    assert texts(read) == {"a.py": "A = 1\n"}  # a brief read it: snapshot and blobs refreshed
    keep_source(again, tmp_path)  # the same source kept again
    keep_source(frozen(tmp_path, {"b.py": "B = 2\n"}), tmp_path)
    assert texts(read) == {"a.py": "A = 1\n"}
    assert texts(again) == {"c.py": "C = 3\n"}


def test_pruning_runs_at_most_once_a_day(tmp_path: Path) -> None:
    first = frozen(tmp_path, {"a.py": "A = 1\n"})
    keep_source(first, tmp_path)  # the first keep prunes (nothing yet) and leaves the marker
    marker = store_dir() / MARKER
    assert marker.is_file()
    age(31, *[p for p in store_dir().rglob("*") if p.is_file() and p != marker])
    keep_source(frozen(tmp_path, {"b.py": "B = 2\n"}), tmp_path)
    assert on_disk(first)  # pruned less than a day ago: left alone (not read: reading refreshes)
    age(1.1, marker)
    keep_source(frozen(tmp_path, {"c.py": "C = 3\n"}), tmp_path)
    assert texts(first) is None


def test_the_store_is_capped_oldest_first(tmp_path: Path) -> None:
    snapshots = [frozen(tmp_path, {f"m{n}.py": f"VALUE = {n}\n" * 200}) for n in range(3)]
    for n, snapshot in enumerate(snapshots):
        keep_source(snapshot, tmp_path)
        fresh = [p for p in store_dir().rglob("*") if p.is_file() and p.name != MARKER]
        age(3 - n, *[p for p in fresh if time.time() - p.stat().st_mtime < 60])  # 0: the oldest
    total = sum(p.stat().st_size for p in store_dir().rglob("*") if p.is_file())
    removed = prune(store_dir(), time.time(), max_bytes=total - 1)
    assert removed and texts(snapshots[0]) is None
    assert texts(snapshots[1]) is not None and texts(snapshots[2]) is not None


def test_a_store_that_cannot_be_written_does_not_fail_the_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "state-is-a-file"
    blocked.write_text("")
    monkeypatch.setenv("XDG_STATE_HOME", str(blocked))
    snapshot = frozen(tmp_path / "ws", {"a.py": "A = 1\n"})
    keep_source(snapshot, tmp_path / "ws")
    assert kept_source(snapshot.fingerprint) is None


CALC_BUG = "def mean(values: list[float]) -> float:\n    return sum(values) / len(values)\n"
CALC_FIXED = (
    "def mean(values: list[float]) -> float:\n    if not values:\n        return 0.0\n"
    "    return sum(values) / len(values)\n"
)
REVIEWER = """
    import json, pathlib, sys
    sys.stdin.read()
    bug = "if not values" not in pathlib.Path("src/orders/calc.py").read_text()
    findings = [{"severity": "major", "category": "error-handling", "path": "src/orders/calc.py",
                 "location": "2", "finding": "mean() divides by zero for an empty list",
                 "evidence": "`sum(values) / len(values)` is 0/0 for []",
                 "recommendation": "Guard the empty list."}]
    answer = {"verdict": "NOT-READY" if bug else "READY", "summary": "s",
              "findings": findings if bug else []}
    if not bug:
        answer["resolved"] = [{"id": "CR-001", "reason": "guarded"}]
    print(json.dumps(answer))
"""


@pytest.mark.parametrize(
    ("gone", "said"),
    [
        ("source", "(no diff: the source of that pass was not kept on this machine)"),
        ("source/blobs", "(no text diff: no longer kept)"),
    ],
)
def test_a_pruned_entry_only_costs_the_next_brief_its_diff(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], gone: str, said: str
) -> None:
    ws = make_workspace(tmp_path / "ws", {"src/orders/calc.py": CALC_BUG})
    reviewer = script_agent(tmp_path / "reviewer.py", REVIEWER)
    assert main(review_args(ws, "--reviewer", reviewer, "--repairer", "none")) == 1
    shutil.rmtree(store_dir().parent / gone)
    write(ws / "src/orders/calc.py", CALC_FIXED)

    assert main(review_args(ws, "--reviewer", reviewer, "--repairer", "none")) == 0

    briefs = ws / "aidlc-docs" / ".aidlc-engine" / "code-review" / UNIT / "briefs"
    second = (briefs / "reviewer-attempt1-pass2.md").read_text()
    assert said in second
