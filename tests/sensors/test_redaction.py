"""No sensor's message, reason or cache entry ever holds a secret value, whoever printed it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from aidlc_review.sensors.redact import REDACTED, redact
from aidlc_review.sensors.results import errored, make_finding
from tests.review.workspace import make_workspace as review_workspace
from tests.review.workspace import review_args
from tests.sensors.support import MYPY_CONFIG, RUFF_CONFIG, cache_bytes, make_workspace, tree_bytes

KEY = "AKIAIOSFODNN7EXAMPLE"
FILES = {
    "pyproject.toml": RUFF_CONFIG,
    "mypy.ini": MYPY_CONFIG,
    # ruff: F821 "Undefined name `AKIA...`"
    "src/app.py": f"print({KEY})\n",
    # mypy: incompatible type "Literal['AKIA...']"
    "src/typed.py": (
        "from typing import Literal\n\n\n"
        "def region(name: Literal['eu']) -> None:\n    return None\n\n\n"
        f"region('{KEY}')\n"
    ),
}


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return make_workspace(tmp_path / "ws", FILES)


def manifest_for(ws: Path) -> Path:
    path = ws.parent / "source-manifest.json"
    writes = [{"path": "src/app.py"}, {"path": "src/typed.py"}]
    path.write_text(json.dumps({"stage": "code-generation", "version": 1, "writes": writes}))
    return path


def test_a_secret_quoted_by_ruff_or_mypy_is_redacted_everywhere(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        ["sensors", "run", "--workspace", str(ws), "--manifest", str(manifest_for(ws)), "--json"]
    )
    assert code == 1
    checks = {c["name"]: c for c in json.loads(capsys.readouterr().out)["checks"]}
    assert [f["message"] for f in checks["linter"]["findings"]] == [
        f"F821 Undefined name `{REDACTED}` (https://docs.astral.sh/ruff/rules/undefined-name)"
    ]
    [typed] = [f for f in checks["type-check"]["findings"] if f["path"] == "src/typed.py"]
    assert f"\"Literal['{REDACTED}']\"" in typed["message"]
    assert {f["rule"] for f in checks["secret-scan"]["findings"]} == {"AWS Access Key"}
    for sensor in ("linter", "type-check"):
        for name in ("src/app.py", "src/typed.py"):
            assert main(["sensors", "fire", sensor, "--workspace", str(ws), "--", name]) == 0
    out, err = capsys.readouterr()
    assert REDACTED in out
    assert KEY not in out and KEY not in err
    assert KEY.encode() not in cache_bytes()


def test_a_sensor_without_the_secret_scan_still_leaves_no_value_in_any_cache(ws: Path) -> None:
    for sensor in ("linter", "type-check"):
        assert main(["sensors", "fire", sensor, "--workspace", str(ws), "--", "src/app.py"]) == 0
    assert KEY.encode() not in cache_bytes()


def test_findings_and_reasons_are_redacted_where_they_are_made() -> None:
    finding = make_finding("linter", "major", "code-quality", "a.py", 1, f"bad `{KEY}`", "F821")
    assert finding.message == f"bad `{REDACTED}`"
    assert (
        finding.fingerprint
        == make_finding(
            "linter", "major", "code-quality", "a.py", 9, f"bad `{REDACTED}`", "F821"
        ).fingerprint
    )
    result = errored("type-check", f"mypy stopped: {KEY} is odd", "code-quality")
    assert result.reason == f"mypy stopped: {REDACTED} is odd"
    assert KEY not in result.findings[0].message


def test_ordinary_long_names_are_left_alone() -> None:
    text = 'Argument 1 to "load_configuration_file" has incompatible type "int"'
    assert redact(text) == text


def test_a_review_writes_the_value_into_no_findings_report_brief_or_cache(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sources = {name: text for name, text in FILES.items() if name.startswith("src/")}
    ws = review_workspace(tmp_path / "ws", sources)
    code = main(review_args(ws))
    out, err = capsys.readouterr()
    record = ws / "aidlc-docs"
    written = tree_bytes(record) + cache_bytes()
    assert code == 1
    assert REDACTED.encode() in written  # ruff's and mypy's messages made it, redacted
    assert KEY not in out and KEY not in err
    assert KEY.encode() not in written


# credential and .env files write secrets as NAME=value, unquoted; values built at run time
PLAIN_PASSWORD = "s3cr3t" + "P4ssw0rdValue99"
KEY_VALUE_FORMS = [
    f"DB_PASSWORD={PLAIN_PASSWORD}",
    f"aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/{PLAIN_PASSWORD}",
    f'export SECRET_KEY="{PLAIN_PASSWORD}"',
    f"password: {PLAIN_PASSWORD}",
    f"api-key={PLAIN_PASSWORD}",
]


@pytest.mark.parametrize("line", KEY_VALUE_FORMS)
def test_key_value_credentials_are_redacted_plain_and_encoded(line: str) -> None:
    import base64

    assert PLAIN_PASSWORD not in redact(line)
    assert REDACTED in redact(line)
    encoded = base64.b64encode(f"{line}\n".encode()).decode()
    assert redact(f"the agent said {encoded}") == f"the agent said {REDACTED}"


@pytest.mark.parametrize(
    "line", ["password = ${DB_PASSWORD}", "token_count = 12", "the access token expired"]
)
def test_names_and_references_that_hold_no_credential_are_left_alone(line: str) -> None:
    assert redact(line) == line
