"""Redaction has a time limit: text not checked in time is replaced wholesale, never let through.

The slow text is real: detect-secrets' keyword detector takes seconds on a few kilobytes of
``secret_password_token_`` repeated (5 KB: about 3.5 s).
"""

from __future__ import annotations

import hashlib
import time

from aidlc_review.sensors.redact import FAST_CHARS, redact, scrub, scrub_many

SLOW = "secret_password_token_" * 300  # 6.6 KB: several seconds unbounded
KEY = "AKIAZ7Q3T5W9X2M4N6P8"
LONG_WITH_KEY = "The handler logs every request in full. " * 20 + f"KEY = {KEY}\n"


def marker(text: str) -> str:
    return f"[redacted: unchecked text {hashlib.sha1(text.encode()).hexdigest()[:8]}]"


def test_agent_text_not_checked_in_time_is_replaced_wholesale() -> None:
    started = time.monotonic()
    assert scrub(SLOW, 0.5) == (marker(SLOW), ())
    assert time.monotonic() - started < 3


def test_one_slow_text_does_not_cost_the_others_their_check() -> None:
    texts = [LONG_WITH_KEY, SLOW, LONG_WITH_KEY.replace("handler", "service")]
    first, slow, last = scrub_many(texts, 0.5)
    assert slow == (marker(SLOW), ())
    for text, quoted in (first, last):
        assert KEY not in text and "[redacted: AWS Access Key " in text
        assert [q.type for q in quoted] == ["AWS Access Key"]


def test_a_tiny_limit_on_a_long_real_text_hides_all_of_it() -> None:
    # a text no other test checks (a result already computed in this process is reused),
    # with a slow tail, so that a busy machine pausing this process past the limit cannot
    # let the check finish first
    unseen = LONG_WITH_KEY.replace("request", "tiny-limit request") + SLOW[:2200]
    assert len(unseen) > FAST_CHARS
    text, quoted = scrub(unseen, 0.001)
    assert (text, quoted) == (marker(unseen), ())


def test_short_texts_are_checked_in_process_whatever_the_limit() -> None:
    short = f"Evidence: KEY = {KEY}"
    text, quoted = scrub(short, 0.001)
    assert text.startswith("Evidence: KEY = [redacted: AWS Access Key ")
    assert [q.type for q in quoted] == ["AWS Access Key"]


def test_within_the_limit_a_long_text_is_redacted_as_in_process() -> None:
    text, quoted = scrub(LONG_WITH_KEY)
    assert text == LONG_WITH_KEY.replace(KEY, quoted[0].marker)
    assert redact(LONG_WITH_KEY) == LONG_WITH_KEY.replace(KEY, "<redacted secret>")
