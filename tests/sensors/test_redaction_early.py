"""``redact.load_plugins_early``: a review forks a child to load detect-secrets' plugins
while it imports the rest; the first short texts it checks (the claimed names) are checked
there, with the same answer as in process, and a child that is gone leaves them to be
checked in process, never unchecked. Each spec runs in a fresh process (a test runner's
worker runs threads, where no child is forked)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

from tests.review.workspace import FAKE_KEY

PROGRAM = """
import json, os, signal, sys
from aidlc_review.sensors import redact

redact.load_plugins_early()
child = redact._EARLY._child
forked = child is not None
if os.environ.get("KILL_IT") and forked:
    os.kill(child.pid, signal.SIGKILL)
found = redact.scrub_many(sys.argv[1:])
loaded_here = bool(redact._plugins.cache_info().currsize)
redact.stop_loading_early()
try:
    os.waitpid(-1, os.WNOHANG)
    left = True
except ChildProcessError:
    left = False
print(json.dumps({
    "forked": forked,
    "shown": [shown for shown, _ in found],
    "types": [[q.type for q in quoted] for _, quoted in found],
    "loaded_here": loaded_here,
    "children_left": left,
}))
"""


def fresh_process(tmp_path: Path, *texts: str, **env: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM, *texts],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), **env},
        timeout=60,
    )
    said: dict[str, Any] = json.loads(done.stdout)
    return said


def names() -> tuple[str, str]:
    return f"src/{FAKE_KEY}.py", f"src/catalog/module_{uuid.uuid4().hex}.py"


def test_the_claimed_names_are_checked_in_the_early_child(tmp_path: Path) -> None:
    secret, clean = names()
    said = fresh_process(tmp_path, secret, clean)
    assert said["forked"] is True
    assert said["types"] == [["AWS Access Key"], []]
    assert FAKE_KEY not in json.dumps(said["shown"])
    assert said["shown"][1] == clean
    assert said["loaded_here"] is False  # the child answered: nothing loaded in the review
    assert said["children_left"] is False


def test_a_child_that_is_gone_leaves_the_names_to_be_checked_in_process(tmp_path: Path) -> None:
    secret, clean = names()
    said = fresh_process(tmp_path, secret, clean, KILL_IT="1")
    assert said["forked"] is True
    assert said["types"] == [["AWS Access Key"], []]
    assert FAKE_KEY not in json.dumps(said["shown"])
    assert said["loaded_here"] is True
    assert said["children_left"] is False


def test_the_answer_is_the_one_given_in_process(tmp_path: Path) -> None:
    from aidlc_review.sensors.redact import scrub_many

    texts = [*names(), f"key={FAKE_KEY.encode().hex()}", "token: " + "Zm9v" * 8]
    said = fresh_process(tmp_path, *texts)
    here = scrub_many(texts)
    assert said["shown"] == [shown for shown, _ in here]
    assert said["types"] == [[q.type for q in quoted] for _, quoted in here]
