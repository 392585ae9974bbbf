"""``review.agents.text``: every text of a checked answer leaves scrubbed, and what it hid."""

from __future__ import annotations

import hashlib

from aidlc_review.review.agents.answer import AnswerCheck
from aidlc_review.review.agents.text import known_hashes, scrub_check
from aidlc_review.review.record.models import AnswerFinding, Resolution, ReviewerAnswer
from aidlc_review.sensors.redact import FAST_CHARS, Quoted
from tests.review.workspace import FAKE_KEY

# a second key, built at run time like FAKE_KEY, so no secret-looking literal sits here
OTHER_KEY = "AKIA" + "QQ7OTHERFAKE2KEY"


def _sha1(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()


def _marker(key: str) -> str:
    return f"[redacted: AWS Access Key {_sha1(key)[:8]}]"


def _quoted(key: str) -> Quoted:
    # an AWS key is matched whole, so the token's hash and the scan hash are the same
    return Quoted("AWS Access Key", _sha1(key), _sha1(key))


def _finding(n: int, **texts: str) -> AnswerFinding:
    return AnswerFinding(
        severity="minor",
        category="correctness",
        path=f"src/m{n}.py",
        location=str(n),
        finding=texts.get("finding", f"finding {n}"),
        evidence=texts.get("evidence", f"evidence {n}"),
        recommendation=texts.get("recommendation", f"recommendation {n}"),
    )


def _answer(
    findings: list[AnswerFinding], summary: str = "s", resolved: list[Resolution] | None = None
) -> ReviewerAnswer:
    return ReviewerAnswer(
        verdict="READY", summary=summary, findings=findings, resolved=resolved or []
    )


def test_an_answer_without_secrets_comes_back_equal_with_nothing_quoted():
    answer = _answer(
        [_finding(1), _finding(2)],
        summary="Two small notes.",
        resolved=[Resolution(id="CR-003", reason="the guard was added")],
    )

    checked = scrub_check(AnswerCheck(answer, None))

    assert checked == AnswerCheck(answer, None, ())


def test_a_secret_in_one_field_is_replaced_there_and_every_other_field_is_kept_in_place():
    findings = [
        _finding(1),
        _finding(2, evidence=f"line 2 reads KEY = {FAKE_KEY!r}"),
        _finding(3),
    ]

    checked = scrub_check(AnswerCheck(_answer(findings), None))

    assert checked.answer is not None and checked.reason is None
    assert [(f.finding, f.evidence, f.recommendation) for f in checked.answer.findings] == [
        ("finding 1", "evidence 1", "recommendation 1"),
        ("finding 2", f"line 2 reads KEY = '{_marker(FAKE_KEY)}'", "recommendation 2"),
        ("finding 3", "evidence 3", "recommendation 3"),
    ]
    assert [f.path for f in checked.answer.findings] == ["src/m1.py", "src/m2.py", "src/m3.py"]
    assert checked.quoted == (_quoted(FAKE_KEY),)


def test_the_summary_and_each_resolution_reason_are_scrubbed_too():
    resolved = [
        Resolution(id="CR-001", reason="fixed"),
        Resolution(id="CR-002", reason=f"the literal {OTHER_KEY} moved to the environment"),
    ]
    answer = _answer([_finding(1)], summary=f"It hard-codes {FAKE_KEY}.", resolved=resolved)

    checked = scrub_check(AnswerCheck(answer, None))

    assert checked.answer is not None
    assert checked.answer.summary == f"It hard-codes {_marker(FAKE_KEY)}."
    assert [(r.id, r.reason) for r in checked.answer.resolved] == [
        ("CR-001", "fixed"),
        ("CR-002", f"the literal {_marker(OTHER_KEY)} moved to the environment"),
    ]
    assert checked.quoted == tuple(sorted([_quoted(FAKE_KEY), _quoted(OTHER_KEY)]))


def test_a_secret_quoted_in_several_fields_is_listed_once():
    findings = [
        _finding(1, finding=f"key {FAKE_KEY}", evidence=f"again {FAKE_KEY}"),
        _finding(2, recommendation=f"rotate {FAKE_KEY}"),
    ]

    checked = scrub_check(AnswerCheck(_answer(findings, summary=FAKE_KEY), None))

    assert checked.quoted == (_quoted(FAKE_KEY),)
    assert checked.answer is not None
    assert FAKE_KEY not in checked.answer.model_dump_json()


def test_a_rejection_reason_quoting_a_secret_is_scrubbed_and_stays_a_rejection():
    reason = f'$.findings[0].severity: must be one of critical, major, minor; got "{FAKE_KEY}"'

    checked = scrub_check(AnswerCheck(None, reason))

    assert checked == AnswerCheck(
        None,
        f'$.findings[0].severity: must be one of critical, major, minor; got "{_marker(FAKE_KEY)}"',
        (_quoted(FAKE_KEY),),
    )


def test_an_accepted_answer_keeps_no_reason_even_though_its_empty_reason_was_checked():
    checked = scrub_check(AnswerCheck(_answer([]), None))

    assert checked.reason is None


def test_a_long_text_checked_out_of_process_is_scrubbed_all_the_same():
    padding = "The handler reads the settings file. " * (FAST_CHARS // 30)
    evidence = f"{padding}It also holds {FAKE_KEY} inline."
    assert len(evidence) > FAST_CHARS

    checked = scrub_check(AnswerCheck(_answer([_finding(1, evidence=evidence)]), None))

    assert checked.answer is not None
    assert checked.answer.findings[0].evidence == (
        f"{padding}It also holds {_marker(FAKE_KEY)} inline."
    )
    assert checked.quoted == (_quoted(FAKE_KEY),)


def test_known_hashes_are_the_sha1s_secret_scan_messages_name():
    first, second = _sha1(FAKE_KEY), _sha1(OTHER_KEY)
    messages = [
        f"AWS Access Key (hashed secret {first})",
        "F401 `os` imported but unused",
        f"two here: (hashed secret {second}) and (hashed secret {first})",
    ]

    assert known_hashes(messages) == {first, second}


def test_a_hash_that_is_not_forty_lowercase_hex_digits_is_not_known():
    messages = [
        f"(hashed secret {_sha1(FAKE_KEY).upper()})",
        "(hashed secret df4c18ba)",
        f"(secret {_sha1(FAKE_KEY)})",
    ]

    assert known_hashes(messages) == set()
    assert known_hashes([]) == set()


def test_a_secret_the_reviewer_quotes_matches_the_hash_its_secret_scan_finding_names():
    scanned = known_hashes([f"AWS Access Key (hashed secret {_sha1(FAKE_KEY)})"])

    checked = scrub_check(AnswerCheck(_answer([_finding(1, evidence=FAKE_KEY)]), None))

    assert {q.scan_hash for q in checked.quoted} == scanned
