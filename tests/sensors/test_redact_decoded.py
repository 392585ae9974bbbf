"""A secret quoted encoded is redacted like a plain one: base64, hex and percent-encoding.

Real detect-secrets, real reviewer processes. Secret-looking values are built at run time
so none sits in the test sources, plain or encoded.
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
import urllib.parse
from collections.abc import Callable
from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from aidlc_review.sensors.redact import (
    FAST_CHARS,
    REDACTED,
    Quoted,
    find_secrets,
    redact,
    scrub,
    scrub_many,
    unchecked_marker,
)
from tests.review.workspace import (
    CLEAN,
    FAKE_KEY,
    LEAKY,
    files_holding,
    findings_doc,
    make_workspace,
    review_args,
    script_agent,
)

TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
GITHUB = ("GitHub Token", TOKEN, "ghp")  # the plugin matches the prefix; the token is replaced
AWS = ("AWS Access Key", FAKE_KEY, FAKE_KEY)
SLOW = "secret_password_token_" * 300  # the keyword detector takes seconds on it


def sha1(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()


def quoted(kind: str, token: str, value: str) -> Quoted:
    return Quoted(kind, sha1(token), sha1(value))


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def percent(text: str) -> str:
    return "".join(f"%{byte:02X}" for byte in text.encode())


ENCODINGS: dict[str, Callable[[str], str]] = {
    "base64": b64,
    "base64 without padding": lambda text: b64(text).rstrip("="),
    # " ???" makes the encoding hold "_": URL-safe, read as such
    "URL-safe base64": lambda text: base64.urlsafe_b64encode(f"{text} ???".encode()).decode(),
    "hex": lambda text: text.encode().hex(),
    "upper-case hex": lambda text: text.encode().hex().upper(),
    "percent-encoding": percent,
    "percent-encoded base64": lambda text: urllib.parse.quote(b64(f"{text} ???"), safe=""),
    "base64 in a URL path": lambda text: "/v1/" + base64.urlsafe_b64encode(text.encode()).decode(),
    "base64 after a name": lambda text: "key_" + b64(text),
}


@pytest.mark.parametrize("secret", [GITHUB, AWS], ids=["github", "aws"])
@pytest.mark.parametrize("encoding", ENCODINGS.values(), ids=ENCODINGS.keys())
def test_an_encoded_secret_is_replaced_by_the_marker_of_the_secret_inside(
    encoding: Callable[[str], str], secret: tuple[str, str, str]
) -> None:
    kind, token, value = secret
    encoded = encoding(token)
    text = f"The reviewer saw {encoded} in the settings, line 3."
    found = quoted(kind, token, value)
    assert scrub(text) == (text.replace(encoded, found.marker), (found,))
    assert redact(text) == text.replace(encoded, REDACTED)
    assert find_secrets(text) == (found,)


def test_the_url_safe_case_is_url_safe() -> None:
    assert "_" in ENCODINGS["URL-safe base64"](TOKEN)
    assert "%2F" in ENCODINGS["percent-encoded base64"](FAKE_KEY)


def test_a_run_holding_two_secrets_is_replaced_by_both_markers() -> None:
    encoded = b64(f"AWS_ACCESS_KEY_ID={FAKE_KEY}\nGITHUB_TOKEN={TOKEN}\n")
    key, token = quoted(*AWS), quoted(*GITHUB)
    key = Quoted(key.type, sha1(f"AWS_ACCESS_KEY_ID={FAKE_KEY}"), key.scan_hash)
    token = Quoted(token.type, sha1(f"GITHUB_TOKEN={TOKEN}"), token.scan_hash)
    assert scrub(f"env: {encoded}") == (f"env: {key.marker} {token.marker}", (key, token))


def test_plain_and_encoded_secrets_in_one_text_are_each_replaced() -> None:
    text = f"key {FAKE_KEY}, token {b64(TOKEN)}, and again {TOKEN.encode().hex()}."
    key, token = quoted(*AWS), quoted(*GITHUB)
    assert scrub(text) == (
        f"key {key.marker}, token {token.marker}, and again {token.marker}.",
        (key, token),
    )


def test_an_encoded_run_flagged_as_high_entropy_is_named_by_the_secret_inside() -> None:
    text = f'TOKEN = "{b64(TOKEN)}"'
    token = quoted(*GITHUB)
    assert scrub(text) == (f'TOKEN = "{token.marker}"', (token,))


def test_a_secret_under_two_encodings_is_found() -> None:
    token = quoted(*GITHUB)
    assert scrub(f"auth: {b64(b64(TOKEN))}") == (f"auth: {token.marker}", (token,))


@pytest.mark.parametrize(
    "text",
    [
        "commit 4e1243bd22c66e76c2ba9eddc1f91394e57f9f83 fixed it",
        f"digest {base64.b64encode(hashlib.sha256(b'x').digest()).decode()} of the wheel",
        f"a note, base64: {b64('nothing secret in this sentence at all')}",
        "see https://example.invalid/search?q=order%20totals%20negative%20prices&page=2",
        "id 123e4567-e89b-12d3-a456-426614174000 and 0123456789abcdef0123456789abcdef",
    ],
    ids=["git sha", "binary digest", "base64 of prose", "url", "uuid and hex"],
)
def test_encoded_text_without_a_secret_is_left_alone(text: str) -> None:
    assert scrub(text) == (text, ())
    assert redact(text) == text


def test_decoded_text_keeps_the_time_limit() -> None:
    slow = b64(SLOW)  # 8.8 KB: seconds unbounded, its plain text is quick
    started = time.monotonic()
    assert scrub(slow, 0.5) == (unchecked_marker(slow), ())
    assert time.monotonic() - started < 3
    assert find_secrets(slow, 0.5) is None


def test_runs_decoding_to_more_than_four_times_the_text_are_not_checked_at_all() -> None:
    # base64 runs read whole and in pieces, each decoding to base64 again, under a
    # percent-encoding: about 5 times their length in decoded text
    amplified = " ".join([(b64(b64("abcdefghijklmnopqrstu")[:27]) + "ZZZ/") * 8 + "%41"] * 3)
    assert len(amplified) > FAST_CHARS
    ordinary = f"Evidence: {b64(TOKEN)}; " + "the handler logs every request. " * 20
    token = quoted(*GITHUB)
    started = time.monotonic()
    assert scrub_many([amplified, ordinary]) == [
        (unchecked_marker(amplified), ()),
        (ordinary.replace(b64(TOKEN), token.marker), (token,)),
    ]
    assert redact(amplified) == unchecked_marker(amplified)
    assert time.monotonic() - started < 3


# ---- the review: a reviewer quoting encoded secrets leaks them nowhere --------------------


def encoding_reviewer(tmp_path: Path, key: str, token: str) -> str:
    """A reviewer quoting the key and the token as given, in its answer and on stderr."""
    finding = {
        "severity": "major",
        "category": "security",
        "path": "src/orders/app.py",
        "location": "5",
        "finding": f"The deploy script embeds {key} for the bucket",
        "evidence": f"decoded from the fixture: key {key}, token {token}",
        "recommendation": f"Rotate {token} and load both from the environment.",
    }
    answer = {"verdict": "NOT-READY", "summary": f"leaked {token}", "findings": [finding]}
    return script_agent(
        tmp_path / "agents" / "reviewer.py",
        f"""
        import json, sys
        sys.stdin.read()
        print("while reading: {key} and {token}", file=sys.stderr)
        print(json.dumps({answer!r}))
        """,
    )


def run_review(tmp_path: Path, ws: Path, key: str, token: str) -> tuple[int, Path]:
    repairer = script_agent(tmp_path / "agents" / "repairer.py", "import sys; sys.stdin.read()")
    sarif = tmp_path / "out" / "review.sarif"
    sarif.parent.mkdir()
    reviewer = encoding_reviewer(tmp_path, key, token)
    args = ["--reviewer", reviewer, "--repairer", repairer, "--sarif", str(sarif), "--json"]
    return main(review_args(ws, *args)), sarif.parent


def quoted_findings(ws: Path) -> list[tuple[str, str, str]]:
    last = findings_doc(ws)["passes"][-1]["findings"]
    return sorted(
        (f["severity"], f["status"], f["finding"])
        for f in last
        if f["finding"].startswith("secret quoted")
    )


REVIEW_ENCODINGS = {"base64": b64, "hex": lambda text: text.encode().hex(), "url": percent}


@pytest.mark.parametrize("name", REVIEW_ENCODINGS)
def test_a_reviewer_quoting_an_encoded_token_and_key_leaks_neither_and_raises_criticals(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    encode = REVIEW_ENCODINGS[name]
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": CLEAN})
    code, sarif_dir = run_review(tmp_path, ws, encode(FAKE_KEY), encode(TOKEN))

    out, err = capsys.readouterr()
    leaked = (FAKE_KEY, TOKEN, encode(FAKE_KEY), encode(TOKEN))
    assert code == 1
    assert files_holding(ws, leaked) == []
    assert files_holding(sarif_dir, leaked) == []
    assert [v for v in leaked if v in out or v in err] == []
    key, token = quoted(*AWS), quoted(*GITHUB)
    assert f"while reading: {key.marker} and {token.marker}" in err
    assert quoted_findings(ws) == [
        ("critical", "open", f"secret quoted by the reviewer: {key.marker}"),
        ("critical", "open", f"secret quoted by the reviewer: {token.marker}"),
    ]
    assert json.loads(out)["verdict"] == "NOT-READY"


def test_a_known_secret_quoted_encoded_is_matched_to_its_finding_not_raised_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = make_workspace(
        tmp_path / "ws", {"src/orders/settings.py": LEAKY, "src/orders/app.py": CLEAN}
    )
    code, sarif_dir = run_review(tmp_path, ws, b64(FAKE_KEY), b64(TOKEN))

    out, err = capsys.readouterr()
    assert code == 1
    assert files_holding(ws, (FAKE_KEY,)) == [str(ws / "src/orders/settings.py")]
    leaked = (TOKEN, b64(FAKE_KEY), b64(TOKEN))
    assert files_holding(ws, leaked) == []
    assert files_holding(sarif_dir, (FAKE_KEY, *leaked)) == []
    assert [v for v in (FAKE_KEY, *leaked) if v in out or v in err] == []
    # the AWS key is the unit's secret-scan finding: only the token is news
    token = quoted(*GITHUB)
    assert quoted_findings(ws) == [
        ("critical", "open", f"secret quoted by the reviewer: {token.marker}")
    ]
