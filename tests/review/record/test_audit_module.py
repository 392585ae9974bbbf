"""``review.record.audit``: the UTC stamp, who decided, and the append-only audit log."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from aidlc_review.errors import InvalidInput
from aidlc_review.review.record.audit import (
    AUDIT_LOG,
    append_event,
    decider,
    read_events,
    utc_now,
)
from tests.review.workspace import git

STAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")


@pytest.fixture
def no_git_identity(tmp_path, monkeypatch):
    """No global or system git config, and a known OS user: only the workspace's own counts."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / "gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for name in ("GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL", "EMAIL", "USER", "LNAME", "USERNAME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LOGNAME", "os-user")  # the first place getpass looks


def _repo(path, email: str | None = None):
    path.mkdir(parents=True)
    git(path, "init", "-q")
    if email is not None:
        git(path, "config", "user.email", email)
    return path


def test_utc_now_is_the_current_utc_time_to_the_second_in_iso_8601():
    before = datetime.now(UTC).replace(microsecond=0)
    stamp = utc_now()
    after = datetime.now(UTC)

    assert STAMP.match(stamp)
    assert before <= datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC) <= after


def test_a_given_decider_wins_stripped_of_surrounding_space(tmp_path, no_git_identity):
    ws = _repo(tmp_path / "ws", "dev@example.com")

    assert decider(ws, "  lead@example.com \n") == "lead@example.com"


def test_without_a_given_decider_it_is_the_workspaces_git_email(tmp_path, no_git_identity):
    ws = _repo(tmp_path / "ws", "dev@example.com")

    assert decider(ws) == "dev@example.com"
    assert decider(ws, "") == "dev@example.com"
    assert decider(ws, "   ") == "dev@example.com"


def test_without_a_git_email_it_is_the_os_user(tmp_path, no_git_identity):
    assert decider(_repo(tmp_path / "repo")) == "os-user"
    not_a_repo = tmp_path / "plain"
    not_a_repo.mkdir()
    assert decider(not_a_repo) == "os-user"


def test_a_workspace_git_cannot_run_in_falls_back_to_the_os_user(tmp_path, no_git_identity):
    assert decider(tmp_path / "missing") == "os-user"


def test_without_git_on_path_it_is_the_os_user(tmp_path, no_git_identity, monkeypatch):
    ws = _repo(tmp_path / "ws", "dev@example.com")
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))

    assert decider(ws) == "os-user"


def test_an_event_is_one_sorted_ascii_json_line_and_the_log_folder_is_made(tmp_path):
    log = tmp_path / "engine" / "u1" / AUDIT_LOG

    append_event(log, {"event": "reset", "by": "Zoë", "attempt": 2})

    assert log.read_bytes() == b'{"attempt": 2, "by": "Zo\\u00eb", "event": "reset"}\n'


def test_appending_never_rewrites_earlier_lines(tmp_path):
    log = tmp_path / AUDIT_LOG
    append_event(log, {"event": "reset", "attempt": 1})
    first = log.read_bytes()

    append_event(log, {"event": "redo", "pass": 2})

    assert log.read_bytes() == first + b'{"event": "redo", "pass": 2}\n'


def test_events_are_read_back_in_order_and_filtered_by_kind(tmp_path):
    log = tmp_path / AUDIT_LOG
    events = [{"event": "reset", "n": 1}, {"event": "redo", "n": 2}, {"event": "reset", "n": 3}]
    for event in events:
        append_event(log, event)

    assert read_events(log) == events
    assert read_events(log, "reset") == [events[0], events[2]]
    assert read_events(log, "approve") == []


def test_an_event_without_a_kind_is_read_but_never_matches_one(tmp_path):
    log = tmp_path / AUDIT_LOG
    append_event(log, {"note": "no kind"})

    assert read_events(log) == [{"note": "no kind"}]
    assert read_events(log, "reset") == []


def test_a_missing_log_or_a_folder_in_its_place_has_no_events(tmp_path):
    assert read_events(tmp_path / AUDIT_LOG) == []
    (tmp_path / "folder").mkdir()
    assert read_events(tmp_path / "folder") == []


@pytest.mark.parametrize(
    "line, message",
    [
        ('{"event": "reset"', "not a JSON audit event: Expecting ',' delimiter"),
        ("", "not a JSON audit event: Expecting value"),
        ('["reset"]', "an audit event must be a JSON object"),
        ('"reset"', "an audit event must be a JSON object"),
    ],
    ids=["truncated", "blank", "a list", "a string"],
)
def test_a_bad_line_is_refused_naming_the_file_and_line(tmp_path, line, message):
    log = tmp_path / AUDIT_LOG
    log.write_text('{"event": "reset"}\n' + line + '\n{"event": "redo"}\n')

    with pytest.raises(InvalidInput) as refused:
        read_events(log)

    assert str(refused.value) == f"{log}:2: {message}"


def test_a_bad_line_is_refused_even_when_another_kind_is_asked_for(tmp_path):
    log = tmp_path / AUDIT_LOG
    log.write_text('{"event": "reset"}\n[]\n')

    with pytest.raises(InvalidInput, match=r":2: an audit event must be a JSON object$"):
        read_events(log, "redo")
