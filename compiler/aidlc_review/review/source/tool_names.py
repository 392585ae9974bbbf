"""What the runtime asks of the tool descriptors without running a sensor, remembered sealed.

The workspace snapshot (``freeze.snapshot_source``) leaves out what the tools leave behind
while checking (each descriptor's ``caches``) and always watches their config files at the
root (each literal name in a descriptor's ``config``); the ledger groups a finding by the
defect class its rule names (each descriptor's ``defects``, ``findings.defects``); the
project knows its test files by the test runners' globs (``tests``, ``Project.test_globs``,
read by every gate that loads the unit's context). Reading
the descriptors parses and validates every shipped sensor manifest (ruamel.yaml, pydantic):
about 0.1 s, the largest part of a gate that is otherwise answered from its proof memo or
from the pass's kept sensor results. These facts depend only on the shipped manifests and
the code that reads them, so they are remembered in the sealed result cache
(``sensors.cache``: an HMAC under this machine's review key), keyed by the bytes of those
manifests, of the modules that read them, and this package's version.

Why sealed: the cache home is writable by the agents the review polices, and a forged
entry could hide a source folder from drift (named as a tool's cache), stop watching a
config file, or fold a finding into another's defect. An entry that does not verify, or
does not have the expected shape, is a miss: the descriptors are read and the entry is
written again.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MEMO_LABEL = "descriptor-names/3"
# the modules whose code turns the manifests into the two lists (a change in a checkout
# changes the key even where the version does not)
_READERS = (
    "sensors/descriptors.py",
    "sensors/globs.py",
    "sensors/manifests.py",
    "harness/definitions/sensor.py",
    "harness/loader.py",
    "harness/frontmatter.py",
)


@dataclass(frozen=True)
class ToolNames:
    caches: tuple[str, ...]  # what the tools leave in the workspace (globs: ``*`` allowed)
    configs: tuple[str, ...]  # literal config file names the tools read at the root
    defects: dict[str, str]  # a finding's rule -> the defect class its tool's descriptor names
    tests: tuple[str, ...] = ()  # where the project's tests are (the test runners' globs)


@functools.cache
def tool_names() -> ToolNames:
    """The descriptors' caches, config names and defect table: from the sealed memo, else
    read and kept."""
    key = memo_key()
    cache = _cache() if key else None
    if cache is not None and key is not None:
        found = _from_memo(cache, key)
        if found is not None:
            return found
    names = read_descriptors()
    if cache is not None and key is not None:
        try:
            value = {"caches": list(names.caches), "configs": list(names.configs)}
            value["tests"] = list(names.tests)
            cache.put_many({key: {**value, "defects": names.defects}})
        except Exception:  # noqa: BLE001 (losing the memo only costs time)
            pass
    return names


def read_descriptors() -> ToolNames:
    """What the descriptors say (the slow way, every time)."""
    from aidlc_review.sensors.descriptors import (
        cache_names,
        defect_table,
        root_config_names,
        where_tests_are,
    )

    return ToolNames(
        tuple(cache_names()), tuple(root_config_names()), dict(defect_table()), where_tests_are()
    )


def memo_key() -> str | None:
    """The memo's key: the shipped sensor manifests' names and bytes, the readers' bytes and
    the version; None when one of them cannot be read (no memo then)."""
    from aidlc_review import __version__
    from aidlc_review.harness.listing import PACKAGE_DIR, plugin_root, sensor_files

    digest = hashlib.sha256(f"{MEMO_LABEL}\0{__version__}".encode())
    try:
        files = [*sensor_files(plugin_root()), *(str(Path(PACKAGE_DIR, r)) for r in _READERS)]
        for name in files:
            data = Path(name).read_bytes()
            digest.update(b"\0%s\0%d\0" % (name.encode(), len(data)) + data)
    except Exception:  # noqa: BLE001 (no plugin files, an unreadable one: no memo)
        return None
    return f"{MEMO_LABEL}:{digest.hexdigest()}"


def _from_memo(cache: Any, key: str) -> ToolNames | None:
    try:
        value = cache.get(key)
    except Exception:  # noqa: BLE001 (an unreadable memo is a miss)
        return None
    if not isinstance(value, dict):
        return None
    caches, configs = _names(value.get("caches")), _names(value.get("configs"))
    defects, tests = _table(value.get("defects")), _names(value.get("tests"))
    if caches is None or configs is None or defects is None or tests is None:
        return None
    return ToolNames(caches, configs, defects, tests)


def _names(value: object) -> tuple[str, ...] | None:
    """A list of non-empty names, else None (an entry of another shape is a miss)."""
    if not isinstance(value, list) or not all(isinstance(n, str) and n for n in value):
        return None
    return tuple(value)


def _table(value: object) -> dict[str, str] | None:
    """A table of non-empty names, else None (an entry of another shape is a miss)."""
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and k and v for k, v in value.items()
    ):
        return None
    return dict(value)


def _cache() -> Any:
    from aidlc_review.sensors.cache import shared_cache

    return shared_cache()
