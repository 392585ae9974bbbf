"""secret-scan: detect-secrets on claimed files; the secret value never leaves the scanner."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from aidlc_review.sensors.tools import find_tool
from tests.sensors.support import cache_bytes, commit_all, make_workspace, run_one

AWS_KEY = "AKIAZ7Q3T5W9X2M4N6P8"
PEM_BODY = "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM2Uqd7sGtm3KzJx0q9LvRr8LZJkFy"
PEM = f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----\n"
OLD_KEY = "AKIAQ2W3E4R5T6Y7U8I9"
ALLOWED_KEY = "AKIAP0O9I8U7Y6T5R4E3"

FILES = {
    "src/settings.py": f'REGION = "eu-west-1"\nAWS_ACCESS_KEY_ID = "{AWS_KEY}"\n',
    "deploy/id_rsa": PEM,
    "src/legacy.py": f'KEY = "{OLD_KEY}"\n',
    "src/pragma.py": f'KEY = "{ALLOWED_KEY}"  # pragma: allowlist secret\n',
    "src/unclaimed.py": f'KEY = "{AWS_KEY}"\n',
}
CLAIMED = ["deploy/id_rsa", "src/legacy.py", "src/pragma.py", "src/settings.py"]


def detect_secrets_cli(ws: Path, *args: str) -> dict:
    exe = find_tool("detect-secrets")
    assert exe is not None
    done = subprocess.run(
        [str(exe), "scan", *args], cwd=ws, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """The files as they stand at the base: the pragma there is honoured."""
    return commit_all(make_workspace(tmp_path / "ws", FILES))


def test_planted_aws_key_and_private_key_are_found_with_type_path_line_and_hash(ws: Path) -> None:
    result = run_one(ws, CLAIMED, "secret-scan")
    assert result.status == "failed"
    found = {(f.path, f.line, f.rule, f.severity) for f in result.findings}
    assert ("src/settings.py", 2, "AWS Access Key", "critical") in found
    assert ("deploy/id_rsa", 1, "Private Key", "critical") in found
    assert not any(f.path in ("src/pragma.py", "src/unclaimed.py") for f in result.findings)
    assert all("hashed secret " in f.message for f in result.findings)


def test_the_results_equal_detect_secrets_scan_on_the_same_files(ws: Path) -> None:
    result = run_one(ws, CLAIMED, "secret-scan")
    cli = detect_secrets_cli(ws, *CLAIMED)["results"]
    expected = {
        (name, item["line_number"], item["type"], item["hashed_secret"])
        for name, items in cli.items()
        for item in items
    }
    ours = {
        (f.path, f.line, f.rule, f.message.rsplit("hashed secret ", 1)[1].rstrip(")"))
        for f in result.findings
    }
    assert ours == expected
    assert len(expected) == 3  # settings.py, id_rsa, legacy.py; the pragma'd line is not reported


def test_a_secret_listed_in_the_baseline_is_not_reported_but_a_new_one_is(ws: Path) -> None:
    (ws / "src/settings.py").write_text('REGION = "eu-west-1"\n')
    baseline = detect_secrets_cli(ws, "src/legacy.py")
    (ws / ".secrets.baseline").write_text(json.dumps(baseline, indent=2))
    commit_all(ws, "the team's baseline")
    (ws / "src/settings.py").write_text(FILES["src/settings.py"])
    result = run_one(ws, CLAIMED, "secret-scan")
    assert {(f.path, f.rule) for f in result.findings} == {
        ("src/settings.py", "AWS Access Key"),
        ("deploy/id_rsa", "Private Key"),
    }


def test_a_baselined_secret_stays_known_when_it_moves_to_another_line(ws: Path) -> None:
    (ws / ".secrets.baseline").write_text(json.dumps(detect_secrets_cli(ws, "src/legacy.py")))
    commit_all(ws, "the team's baseline")
    (ws / "src/legacy.py").write_text(f'"""Moved down."""\n\nKEY = "{OLD_KEY}"\n')
    result = run_one(ws, ["src/legacy.py"], "secret-scan")
    assert (result.status, result.findings) == ("passed", ())


def test_a_baseline_the_change_writes_hides_nothing(ws: Path) -> None:
    (ws / ".secrets.baseline").write_text(json.dumps(detect_secrets_cli(ws, *CLAIMED)))
    result = run_one(ws, [*CLAIMED, ".secrets.baseline"], "secret-scan")
    assert {(f.path, f.rule) for f in result.findings} == {
        ("src/settings.py", "AWS Access Key"),
        ("deploy/id_rsa", "Private Key"),
        ("src/legacy.py", "AWS Access Key"),
    }


def test_an_allowlist_pragma_the_change_adds_hides_nothing(ws: Path) -> None:
    (ws / "src/settings.py").write_text(
        f'REGION = "eu-west-1"\nAWS_ACCESS_KEY_ID = "{AWS_KEY}"  # pragma: allowlist secret\n'
    )
    (ws / "src/legacy.py").write_text(f'# pragma: allowlist nextline secret\nKEY = "{OLD_KEY}"\n')
    result = run_one(ws, ["src/legacy.py", "src/settings.py"], "secret-scan")
    assert [(f.path, f.line, f.rule, f.severity) for f in result.findings] == [
        ("src/legacy.py", 2, "AWS Access Key", "critical"),
        ("src/settings.py", 2, "AWS Access Key", "critical"),
    ]
    assert result.findings[0].message.endswith(
        "; hidden by `pragma: allowlist nextline secret` (line 1, added by this change), "
        "which does not count"
    )
    assert AWS_KEY not in repr(result) and OLD_KEY not in repr(result)


def test_without_a_base_commit_no_pragma_is_proven_to_predate_the_change(tmp_path: Path) -> None:
    plain = make_workspace(tmp_path / "plain", FILES)
    result = run_one(plain, ["src/pragma.py"], "secret-scan")
    assert [(f.path, f.line, f.rule) for f in result.findings] == [
        ("src/pragma.py", 1, "AWS Access Key")
    ]


def test_an_unreadable_baseline_is_an_error_that_blocks(ws: Path) -> None:
    (ws / ".secrets.baseline").write_text("{not json")
    commit_all(ws, "a broken baseline")
    result = run_one(ws, CLAIMED, "secret-scan")
    assert result.status == "error"
    assert result.reason.startswith(".secrets.baseline: unreadable detect-secrets baseline: ")
    assert result.blocking


def test_the_secret_value_never_reaches_stdout_stderr_or_any_written_file(
    ws: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = tmp_path / "source-manifest.json"
    manifest.write_text(
        json.dumps(
            {"stage": "code-generation", "version": 1, "writes": [{"path": p} for p in CLAIMED]}
        )
    )
    for extra in ([], ["--json"]):
        code = main(
            [
                "sensors",
                "run",
                "--workspace",
                str(ws),
                "--manifest",
                str(manifest),
                "--sensor",
                "secret-scan",
                *extra,
            ]
        )
        assert code == 1
    fired = main(["sensors", "fire", "secret-scan", "--workspace", str(ws), "--", *CLAIMED])
    assert fired == 0
    out, err = capsys.readouterr()
    assert "AWS Access Key" in out and "Private Key" in out
    written = cache_bytes() + b"".join(
        p.read_bytes()
        for p in ws.rglob("*")
        if p.is_file() and p.relative_to(ws).as_posix() not in FILES
    )
    for secret in (AWS_KEY, PEM_BODY, OLD_KEY):
        assert secret not in out and secret not in err
        assert secret.encode() not in written
    assert b"AWS Access Key" in written  # the cache was written, just without values


def test_a_file_named_like_an_option_is_scanned_as_a_file(ws: Path) -> None:
    (ws / "--help").write_text(FILES["src/settings.py"])
    (ws / "-rf").write_text(PEM)
    result = run_one(ws, ["--help", "-rf"], "secret-scan")
    assert {(f.path, f.rule) for f in result.findings} == {
        ("--help", "AWS Access Key"),
        ("-rf", "Private Key"),
    }


def fake_stripe_key() -> str:
    """A made-up live Stripe key, built here so the repository holds no literal one."""
    return "sk_" + "live_" + "4eC39HqLyjWD" + "arjtT1zdp7dc"


def test_one_stripe_key_that_three_detectors_flag_is_one_critical_finding_naming_them_all(
    ws: Path,
) -> None:
    key = fake_stripe_key()
    (ws / "src/billing.py").write_text(f'STRIPE_API_KEY = "{key}"\n')
    result = run_one(ws, ["src/billing.py"], "secret-scan")
    raw = detect_secrets_cli(ws, "src/billing.py")["results"]["src/billing.py"]
    assert sorted(item["type"] for item in raw) == [
        "Base64 High Entropy String",
        "Secret Keyword",
        "Stripe Access Key",
    ]
    [finding] = result.findings
    hashed = raw[0]["hashed_secret"]
    assert (finding.path, finding.line, finding.rule, finding.severity) == (
        "src/billing.py",
        1,
        "Stripe Access Key",
        "critical",
    )
    assert finding.message == (
        "Stripe Access Key (detectors: Stripe Access Key, Secret Keyword, "
        f"Base64 High Entropy String; hashed secret {hashed})"
    )
    assert key not in finding.message


def test_a_secret_one_detector_flags_keeps_its_one_detector_wording(ws: Path) -> None:
    result = run_one(ws, ["src/settings.py"], "secret-scan")
    [finding] = result.findings
    assert finding.message.startswith("AWS Access Key (hashed secret ")
