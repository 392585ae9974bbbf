"""type-check's seed: a new workspace's mypy starts from the machine's copy of a clean run's
cache, reports exactly what a cold run reports, and a secret or a broken seed changes that
only by costing a cold run."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from aidlc_review.sensors import incremental_seed, run_sensors, tool_cache
from tests.sensors.support import (
    MYPY_CONFIG,
    built_once,
    fake_tool,
    located,
    make_workspace,
    project_manifest,
    run_one,
    tree_bytes,
)

CLAIMED = ["app/__init__.py", "app/claimed.py"]
FILES = {
    "mypy.ini": MYPY_CONFIG,
    "app/__init__.py": "",
    "app/claimed.py": "from app.helper import double\n\nresult: str = double(2)\n",
    "app/helper.py": "def double(x: int) -> int:\n    return x * 2\n",
}
KEY = "AKIA" + "Q4NBXV7RMZ2PLK6T"  # an AWS access key id's shape, split so no scanner flags us
SEEDED = "type-check: mypy's cache starts from this machine's seed"


def seeds_of(root: Path) -> list[Path]:
    return sorted((root / "seeds" / "mypy").glob("*"))


def type_check(ws: Path, root: Path, said: list[str] | None = None):
    """type-check with the secret-scan beside it, as in a review: only a run whose scan
    cleared the claimed files leaves a seed."""
    progress = None if said is None else said.append
    manifests = [project_manifest("type-check"), project_manifest("secret-scan")]
    checked, scanned = run_sensors(ws, CLAIMED, manifests, cache_dir=root, progress=progress)
    assert scanned.status == "passed"
    return checked


@pytest.fixture(scope="module")
def seeded(tmp_path_factory) -> Path:
    """The seeds one clean cold run on ``FILES`` left (run once per test run, for every
    worker); a test copies them into its own cache (``seeds_copied``)."""

    def first_run(where: Path) -> None:
        type_check(make_workspace(where / "first", FILES), where / "cache")
        assert len(seeds_of(where / "cache")) == 1

    folder, _ = built_once(tmp_path_factory, "mypy-seeded", first_run)
    return folder / "cache" / "seeds"


def seeds_copied(seeded: Path, root: Path) -> Path:
    """The shared seeds copied into ``root``, sealed as this machine's own clean run leaves
    them (a copy has new inodes: unsealed, it would be removed, never planted)."""
    shutil.copytree(seeded, root / "seeds", symlinks=True)
    for seed in seeds_of(root):
        tool_cache.seal(seed)
    return root


def test_a_new_workspace_starts_from_the_seed_and_finds_what_a_cold_run_finds(
    seeded: Path, tmp_path: Path
):
    root = seeds_copied(seeded, tmp_path / "cache")
    [seed] = seeds_of(root)
    # the second workspace differs where it matters: helper now returns a str
    changed = {**FILES, "app/helper.py": "def double(x: int) -> str:\n    return str(x)\n"}
    second, said = make_workspace(tmp_path / "second", changed), []

    seeded = type_check(second, root, said)
    cold = type_check(second, tmp_path / "cold-cache")

    assert SEEDED in said
    assert located(seeded) == located(cold) == []
    assert seeded.status == cold.status == "passed"
    assert seeds_of(root) == [seed], "a seed is left once, not rewritten"
    first_again = type_check(make_workspace(tmp_path / "third", FILES), root)
    assert located(first_again) == [("app/claimed.py", 3, "assignment", "major")]


def test_a_run_without_the_secret_scan_starts_from_a_seed_but_leaves_none(
    seeded: Path, tmp_path: Path
):
    root, said = tmp_path / "cache", []
    ws = make_workspace(tmp_path / "ws", FILES)
    run_one(ws, CLAIMED, "type-check", cache_dir=root)
    assert seeds_of(root) == []
    seeds_copied(seeded, root)  # as a clean review's run would have left
    again = make_workspace(tmp_path / "again", FILES)
    result = run_one(again, CLAIMED, "type-check", cache_dir=root, progress=said.append)
    assert SEEDED in said
    assert located(result) == [("app/claimed.py", 3, "assignment", "major")]


def test_a_run_that_saw_a_secret_leaves_no_seed(tmp_path: Path):
    root = tmp_path / "cache"
    files = {
        **FILES,
        "app/helper.py": f'TOKEN = "{KEY}"\n\n\ndef double(x: int) -> int:\n    return x * 2\n',
    }
    ws = make_workspace(tmp_path / "ws", files)
    manifests = [project_manifest("type-check"), project_manifest("secret-scan")]

    run_sensors(ws, [*CLAIMED, "app/helper.py"], manifests, cache_dir=root)

    assert seeds_of(root) == []
    assert KEY.encode() not in tree_bytes(root)


def test_a_seed_rewritten_after_its_seal_is_removed_never_planted(seeded: Path, tmp_path: Path):
    root = seeds_copied(seeded, tmp_path / "cache")
    [seed] = seeds_of(root)
    for stored in seed.rglob("*.db"):
        stored.write_bytes(b"an agent's cache")
    said: list[str] = []

    result = type_check(make_workspace(tmp_path / "second", FILES), root, said)

    assert SEEDED not in said
    assert located(result) == [("app/claimed.py", 3, "assignment", "major")]
    assert b"an agent's cache" not in tree_bytes(root), "removed; the clean run left a new seed"


def test_a_broken_seed_costs_one_cold_run_and_is_replaced(seeded: Path, tmp_path: Path):
    root = seeds_copied(seeded, tmp_path / "cache")
    [seed] = seeds_of(root)
    for stored in seed.rglob("*.db"):
        stored.write_bytes(b"not a database")
    tool_cache.seal(seed)  # broken as this machine sealed it: mypy itself must refuse it
    said: list[str] = []

    result = type_check(make_workspace(tmp_path / "second", FILES), root, said)

    assert SEEDED in said
    assert any("mypy failed with the seeded cache" in line for line in said), said
    assert located(result) == [("app/claimed.py", 3, "assignment", "major")]
    assert b"not a database" not in tree_bytes(seed), "the clean cold run left a new seed"


def test_a_seed_is_planted_only_into_a_workspace_without_a_cache(tmp_path: Path):
    seed = make_workspace(tmp_path / "seed", {"3.11/cache.0.db": "seed"})
    tool_cache.seal(seed)
    own = make_workspace(tmp_path / "own", {"3.11/cache.0.db": "own"})
    fresh = tmp_path / "fresh"

    assert incremental_seed.plant(seed, own) is False
    assert (own / "3.11/cache.0.db").read_text() == "own"
    assert incremental_seed.plant(seed, fresh) is True
    assert (fresh / "3.11/cache.0.db").read_text() == "seed"
    incremental_seed.publish(own, seed)
    assert (seed / "3.11/cache.0.db").read_text() == "seed", "a seed is never rewritten"
    incremental_seed.discard(seed)
    assert not seed.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fresh", "own"], "no copy left over"


def test_a_hang_from_the_seed_is_not_run_twice_and_keeps_the_seed(tmp_path: Path):
    """A timeout is the tool's, not the seed's: mypy is not started again cold."""
    calls = tmp_path / "calls"
    bin_dir = tmp_path / "bin"
    mypy = fake_tool(
        bin_dir,
        "mypy",
        "import sys, time\n"
        "if '--version' in sys.argv:\n    print('mypy 9.9')\n    sys.exit(0)\n"
        f"open({str(calls)!r}, 'a').write('run\\n')\n"
        "time.sleep(60)\n",
    )
    root = tmp_path / "cache"
    seed = make_workspace(
        incremental_seed.location(root / "seeds", "mypy", "mypy 9.9", mypy), {"x": "seed"}
    )
    tool_cache.seal(seed)
    said: list[str] = []

    result = run_one(
        make_workspace(tmp_path / "ws", FILES),
        CLAIMED,
        "type-check",
        settings={"tool_path": str(bin_dir), "timeout_seconds": 1},
        cache_dir=root,
        progress=said.append,
    )

    assert SEEDED in said
    assert (result.status, result.reason) == ("error", "mypy timed out after 1s")
    assert calls.read_text() == "run\n"
    assert (seed / "x").read_text() == "seed"


def test_the_half_copies_a_killed_run_left_are_cleared_and_a_running_copy_is_not(tmp_path):
    seeds = tmp_path / "seeds"
    seed, cache = seeds / "key", tmp_path / "scratch" / "mypy-cache"
    killed = make_workspace(seeds / ".key.k1ll3d", {"key/3.11/cache.0.db": "half"})
    os.utime(killed, (0, 0))
    running = make_workspace(seeds / ".key.running", {"key/3.11/cache.0.db": "half"})
    killed_plant = make_workspace(cache.parent / ".mypy-cache.k1ll3d", {"x": "half"})
    make_workspace(tmp_path / "own", {"3.11/cache.0.db": "own"})

    incremental_seed.publish(tmp_path / "own", seed)
    assert incremental_seed.plant(seed, cache)

    assert not killed.exists() and not killed_plant.exists()
    assert running.exists()
    assert (cache / "3.11/cache.0.db").read_text() == "own"
