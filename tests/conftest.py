import os
from pathlib import Path

import pytest

from tests import engine_export
from tests.shared_builds import session_root, share_tool_seeds

# upstream's bun is installed once per machine (by ../shared/bin/aidlc-upstream), in the
# cache dir of the user running the tests: fixed here, before each test gets a cache of its own.
_USER_CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
os.environ.setdefault("AIDLC_BUN_HOME", str(_USER_CACHE / "aidlc-upstream-bun"))
# bun keeps the JavaScript it transpiles from upstream's large .ts tools in a cache keyed by
# their content, under XDG_CACHE_HOME, which each test replaces below: pinned to the user's
# cache, as on a real machine, so the ~900 engine calls of a run do not each transpile anew.
os.environ.setdefault(
    "BUN_RUNTIME_TRANSPILER_CACHE_PATH", str(_USER_CACHE / "aidlc-upstream-bun-transpiled")
)


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory, monkeypatch):
    """Every test gets its own cache dir, so compile stamps and results never leak between
    tests; only the tools' cache seeds are the run's (``share_tool_seeds``)."""
    cache = tmp_path_factory.mktemp("cache")
    share_tool_seeds(cache, session_root(tmp_path_factory))
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))


@pytest.fixture(autouse=True)
def _private_state(tmp_path_factory, monkeypatch):
    """Every test gets its own state dir, so the key that seals review state is its own."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path_factory.mktemp("state")))


# The end-to-end directories hold the longest tests; started first, they do not leave one
# worker busy at the end while the other waits (the sort is stable: order within is kept).
LONG_FIRST = (
    "tests/upstream/",
    "tests/hooks/",
    "tests/packaging/",
    "tests/ci/",
    "tests/compiler/test_differential.py",
)


def _rank(item: pytest.Item) -> int:
    found = [i for i, prefix in enumerate(LONG_FIRST) if item.nodeid.startswith(prefix)]
    return found[0] if found else len(LONG_FIRST)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=_rank)
    if engine_export.export() is None:
        for item in items:
            if item.get_closest_marker("engine"):
                item.add_marker(pytest.mark.skip(reason=engine_export.REASON))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    """A test that asks for the engine (``engine_export.require``) without the ``engine`` mark
    fails: ``pytest -m engine`` (``make test-engine``) would leave it out."""
    report = yield
    asked = report.skipped and engine_export.REASON in str(report.longrepr)
    if asked and not item.get_closest_marker("engine"):
        report.outcome = "failed"
        report.longrepr = f"{item.nodeid} needs upstream's engine but is not marked engine"
    return report
