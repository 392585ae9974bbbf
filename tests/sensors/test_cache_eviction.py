"""The sensor cache is bounded: the oldest results and the least recently used workspaces'
scratch folders go first, never the one in use nor one another run used a moment ago."""

from __future__ import annotations

import os
import time

from aidlc_review.sensors import eviction
from aidlc_review.sensors.cache import ResultCache


def _aged(folder, seconds_ago: float, size: int = 10):
    folder.mkdir(parents=True)
    (folder / "data").write_bytes(b"x" * size)
    when = time.time() - seconds_ago
    os.utime(folder, (when, when))
    return folder


def test_results_beyond_the_bound_go_oldest_first(tmp_path):
    cache = ResultCache(tmp_path)
    cache.put_many({f"k{i}": {"n": i} for i in range(10)})
    cache.put_many({"k0": {"n": 0}})  # stored again: the newest now

    gone = eviction.evict_results(cache._db, keep=4)

    assert gone == 6
    assert sorted(cache.get_many([f"k{i}" for i in range(10)])) == ["k0", "k7", "k8", "k9"]


def test_scratch_folders_beyond_the_count_go_least_recently_used_first(tmp_path):
    scratch = tmp_path / "scratch"
    old = [_aged(scratch / f"w{i}", 86400 * (i + 2)) for i in range(4)]
    recent = _aged(scratch / "busy", 60)  # another run used it a minute ago
    current = _aged(scratch / "mine", 86400 * 30)  # this run's, however old its mtime

    removed = eviction.evict_folders(scratch, current, max_count=2)

    assert sorted(removed) == ["w1", "w2", "w3"]
    assert sorted(p.name for p in scratch.iterdir()) == ["busy", "mine", "w0"]
    assert old[0].is_dir() and recent.is_dir() and current.is_dir()


def test_scratch_folders_beyond_the_size_go_too(tmp_path):
    scratch = tmp_path / "scratch"
    _aged(scratch / "new", 7200, size=600)
    _aged(scratch / "old", 86400, size=600)

    assert eviction.evict_folders(scratch, None, max_count=10, max_bytes=1000) == ["old"]


def test_a_run_evicts_at_most_once_an_interval(tmp_path, monkeypatch):
    monkeypatch.setattr(eviction, "MAX_SCRATCH", 0)
    scratch = tmp_path / "scratch"
    _aged(scratch / "a", 86400)

    first = eviction.evict_cache(tmp_path, None, scratch / "current")
    _aged(scratch / "b", 86400)
    second = eviction.evict_cache(tmp_path, None, scratch / "current")

    assert first.folders == ["a"] and not second
    assert (scratch / "b").is_dir()


def test_the_seeds_of_every_tool_are_bounded_each_on_its_own(tmp_path, monkeypatch):
    monkeypatch.setattr(eviction, "MAX_SEEDS", 1)
    seeds = tmp_path / "seeds"
    for tool in ("checker", "other"):
        _aged(seeds / tool / "older", 86400 * 3)
        _aged(seeds / tool / "newer", 86400 * 2)

    evicted = eviction.evict_cache(tmp_path, None, tmp_path / "scratch" / "current")

    assert evicted.folders == ["older", "older"]
    assert sorted(p.relative_to(seeds).as_posix() for p in seeds.glob("*/*")) == [
        "checker/newer",
        "other/newer",
    ]
