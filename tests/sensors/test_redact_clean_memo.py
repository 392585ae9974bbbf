"""A claimed file's name found clean is remembered, sealed, so a gate needs no detect-secrets;
nothing but this machine's own seal makes a name clean."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import uuid
from pathlib import Path

from aidlc_review.sensors.cache import ResultCache, default_cache_dir
from aidlc_review.sensors.redact import MEMO_CHARS, _memo_key, scrub

KEY = "AKIAIOSFODNN7EXAMPLE"
HIT = """
import sys
from aidlc_review.sensors.redact import scrub
print(scrub(sys.argv[1])[0], "detect_secrets" in sys.modules)
"""


def unique_name() -> str:
    return f"src/catalog/module_{uuid.uuid4().hex}.py"


def in_fresh_process(text: str) -> tuple[str, bool]:
    done = subprocess.run(
        [sys.executable, "-c", HIT, text],
        capture_output=True,
        text=True,
        check=True,
        env=os.environ.copy(),
    )
    shown, imported = done.stdout.strip().rsplit(" ", 1)
    return shown, imported == "True"


def forge(text: str, value: str) -> None:
    """Write an entry for ``text`` straight into the cache file, as an agent could."""
    ResultCache(default_cache_dir()).close()  # the file exists
    db = sqlite3.connect(default_cache_dir() / "results.sqlite3")
    with db:
        db.execute("INSERT OR REPLACE INTO entries VALUES (?, ?)", (_memo_key(text), value))
    db.close()


def test_a_clean_name_scanned_once_is_answered_in_another_process_without_detect_secrets():
    name = unique_name()
    assert scrub(name)[0] == name
    assert in_fresh_process(name) == (name, False)


def test_a_name_never_scanned_here_is_scanned_with_detect_secrets():
    name = unique_name()
    assert in_fresh_process(name) == (name, True)


def test_a_name_holding_a_secret_is_never_remembered_clean():
    name = f"src/{KEY}/{uuid.uuid4().hex}.py"
    assert scrub(name)[0] != name
    shown, imported = in_fresh_process(name)
    assert KEY not in shown and imported


def test_a_forged_clean_entry_for_a_secret_name_is_a_miss_and_the_secret_is_found():
    name = f"src/{KEY}/{uuid.uuid4().hex}.py"
    forge(name, "0" * 64 + ":true")
    shown, imported = in_fresh_process(name)
    assert KEY not in shown and imported


def test_an_entry_sealed_by_another_machines_key_is_a_miss(tmp_path: Path):
    name = f"src/{KEY}/{uuid.uuid4().hex}.py"
    other = os.environ.copy()
    other["XDG_STATE_HOME"] = str(tmp_path / "other-machine")
    writes = "import sys\nfrom aidlc_review.sensors.cache import *\n" + (
        "from aidlc_review.sensors.redact import _memo_key\n"
        "c = ResultCache(default_cache_dir()); c.put_many({_memo_key(sys.argv[1]): True})\n"
    )
    subprocess.run([sys.executable, "-c", writes, name], env=other, check=True)
    shown, imported = in_fresh_process(name)
    assert KEY not in shown and imported


def test_a_clean_finding_message_scanned_once_is_answered_in_another_process_too():
    # a replayed finding's message is redacted again when it is made: no detect-secrets
    message = (
        f"`os` imported but unused ({uuid.uuid4().hex}: "
        "https://docs.astral.sh/ruff/rules/unused-import)"
    )
    assert scrub(message)[0] == message
    assert in_fresh_process(message) == (message, False)


def test_a_message_holding_a_secret_is_never_remembered_clean():
    message = f"settings {uuid.uuid4().hex}: AWS key = {KEY} in the config"
    assert KEY not in scrub(message)[0]
    shown, imported = in_fresh_process(message)
    assert KEY not in shown and imported


def test_a_text_longer_than_the_memo_takes_is_scanned_every_time():
    text = f"{uuid.uuid4().hex} " + "word " * MEMO_CHARS
    assert scrub(text)[0] == text
    assert in_fresh_process(text)[1]
