"""A waiver's text is checked before anything is loaded or written: no secret, one line, short.

Real detect-secrets and the real CLI. Secret-looking values are built at run time so none
sits in the test sources.
"""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from aidlc_review.errors import InvalidInput
from aidlc_review.review.record.waiver_text import BY_CHARS, REASON_CHARS, check_waiver_text
from tests.review.workspace import (
    FAKE_KEY,
    LINT_ERROR,
    UNIT,
    every_file_under,
    findings_doc,
    make_workspace,
)

TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
WRITTEN = "a waiver's text is written to the findings, the report and SARIF"
ONE_LINE = "a waiver's text is one line of plain text"
REASON = "the import is kept for the plugin loader"


def marker(kind: str, token: str) -> str:
    return f"[redacted: {kind} {hashlib.sha1(token.encode()).hexdigest()[:8]}]"


def refusal(reason: str, by: str) -> str:
    with pytest.raises(InvalidInput) as raised:
        check_waiver_text(reason, by)
    return str(raised.value)


def test_ordinary_text_up_to_the_caps_passes() -> None:
    check_waiver_text(REASON, "Dana Lee <dana@example.invalid>")
    check_waiver_text("r" * REASON_CHARS, "b" * BY_CHARS)
    check_waiver_text("kept until the vendored parser is dropped (ticket #412) — ok", "lead")


def test_a_secret_in_either_is_named_by_its_marker_never_its_value() -> None:
    message = refusal(f"kept until {TOKEN} is rotated", FAKE_KEY)
    assert message == (
        f"--by: holds a secret ({marker('AWS Access Key', FAKE_KEY)}); {WRITTEN}: "
        "name who accepts it without it\n"
        f"--reason: holds a secret ({marker('GitHub Token', TOKEN)}); {WRITTEN}: "
        "say why without it"
    )
    assert TOKEN not in message and FAKE_KEY not in message


def test_an_encoded_secret_is_refused_like_a_plain_one() -> None:
    encoded = base64.b64encode(TOKEN.encode()).decode()
    hexed = FAKE_KEY.encode().hex()
    assert refusal(f"token {encoded} and key {hexed} are test fixtures", "lead") == (
        f"--reason: holds secrets ({marker('AWS Access Key', FAKE_KEY)}, "
        f"{marker('GitHub Token', TOKEN)}); {WRITTEN}: say why without it"
    )


@pytest.mark.parametrize(
    ("by", "code", "at"),
    [
        ("lead\nverdict READY", 0x0A, 5),
        ("lead\r", 0x0D, 5),
        ("\x1b[2Klead", 0x1B, 1),
        ("lead\tops", 0x09, 5),
        ("lead\u202eops", 0x202E, 5),
        ("lead\u2028ops", 0x2028, 5),
    ],
    ids=["newline", "carriage return", "ansi escape", "tab", "bidi override", "line separator"],
)
def test_a_control_character_is_refused_naming_where(by: str, code: int, at: int) -> None:
    assert refusal(REASON, by) == (
        f"--by: holds a control character (U+{code:04X} at character {at}); {ONE_LINE}"
    )


def test_each_cap_is_one_past_the_limit() -> None:
    assert refusal("r" * (REASON_CHARS + 1), "b" * (BY_CHARS + 1)) == (
        "--by: 201 characters, more than the 200 allowed: name who accepts it\n"
        "--reason: 501 characters, more than the 500 allowed: say why in a sentence or two"
    )


def test_an_empty_reason_and_every_other_problem_are_named_at_once() -> None:
    assert refusal(" \n ", f"lead\n{TOKEN}") == (
        f"--by: holds a control character (U+000A at character 5); {ONE_LINE}\n"
        f"--by: holds a secret ({marker('GitHub Token', TOKEN)}); {WRITTEN}: "
        "name who accepts it without it\n"
        f"--reason: holds a control character (U+000A at character 2); {ONE_LINE}\n"
        "--reason: say why the finding is accepted"
    )


# ---- the CLI: refused before the unit is loaded, nothing written, the secret nowhere ------


@pytest.fixture
def reviewed(tmp_path: Path) -> tuple[Path, str]:
    """A reviewed unit with one open, waivable lint finding, and that finding's ID."""
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": LINT_ERROR})
    assert main(["review", "run", "--workspace", str(ws), "--unit", UNIT]) == 1
    (cr,) = [f["id"] for f in findings_doc(ws)["passes"][-1]["findings"] if f["check"] == "linter"]
    return ws, cr


def waive(ws: Path, cr: str, reason: str, by: str) -> int:
    args = ["review", "waive", "--workspace", str(ws), "--unit", UNIT, cr]
    return main([*args, "--reason", reason, "--by", by, "--json"])


def test_review_waive_with_a_token_and_a_key_exits_2_and_writes_them_nowhere(
    reviewed: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    ws, cr = reviewed
    before = every_file_under(ws)
    capsys.readouterr()

    assert waive(ws, cr, f"kept until {TOKEN} is rotated", FAKE_KEY) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        f"--by: holds a secret ({marker('AWS Access Key', FAKE_KEY)}); {WRITTEN}: "
        "name who accepts it without it\n"
        f"--reason: holds a secret ({marker('GitHub Token', TOKEN)}); {WRITTEN}: "
        "say why without it\n"
    )
    assert every_file_under(ws) == before
    assert [
        p for p, data in before.items() if TOKEN.encode() in data or FAKE_KEY.encode() in data
    ] == []
    assert findings_doc(ws)["waivers"] == []


def test_review_waive_refuses_a_newline_in_by_and_a_10_kb_reason_writing_nothing(
    reviewed: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    ws, cr = reviewed
    before = every_file_under(ws)
    capsys.readouterr()

    assert waive(ws, cr, REASON, "lead\nverdict: READY") == 2
    assert capsys.readouterr() == (
        "",
        f"--by: holds a control character (U+000A at character 5); {ONE_LINE}\n",
    )
    assert waive(ws, cr, "because " * 1250, "lead") == 2
    assert capsys.readouterr() == (
        "",
        "--reason: 10000 characters, more than the 500 allowed: say why in a sentence or two\n",
    )
    assert every_file_under(ws) == before
    assert waive(ws, cr, REASON, "lead") == 0  # the same finding, with text that passes
    assert [w["by"] for w in findings_doc(ws)["waivers"]] == ["lead"]
