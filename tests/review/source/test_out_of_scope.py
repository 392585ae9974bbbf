"""What a unit does not claim cannot slip past the review: dropped claims, config, attempts."""

from __future__ import annotations

import json
import shutil

import pytest

from aidlc_review.cli.main import main
from tests.review.workspace import (
    CLEAN,
    LEAKY,
    LINT_ERROR,
    UNIT,
    findings_doc,
    make_workspace,
    manifest_path,
    review_args,
    script_agent,
    write,
)

ENGINE = f"aidlc-docs/.aidlc-engine/code-review/{UNIT}"


def _verify(ws, capsys):
    capsys.readouterr()
    code = main(["review", "verify", "--workspace", str(ws), "--unit", UNIT])
    return code, capsys.readouterr().out


def _approve(ws):
    return main(["review", "gate", "--workspace", str(ws), "--unit", UNIT, "--approve"])


def test_a_blocking_finding_on_a_path_the_repairer_stops_claiming_stays_open(tmp_path, capsys):
    ws = make_workspace(tmp_path / "ws", {"src/app.py": CLEAN, "src/keys.py": LEAKY})
    manifest = manifest_path(ws)
    unclaim = script_agent(
        tmp_path / "unclaim.py",
        f"""
        import json, pathlib, sys
        sys.stdin.read()
        path = pathlib.Path({str(manifest)!r})
        data = json.loads(path.read_text())
        data["writes"] = [{{"path": "src/app.py"}}]
        path.write_text(json.dumps(data))
    """,
    )
    assert main(review_args(ws, "--repairer", unclaim)) == 1
    first, second = findings_doc(ws)["passes"]
    [secret] = [f for f in first["findings"] if f["check"] == "secret-scan"]
    assert (secret["path"], secret["status"]) == ("src/keys.py", "open")
    still = {f["id"]: f for f in second["findings"]}[secret["id"]]
    assert (still["status"], second["verdict"]) == ("open", "NOT-READY")
    assert still["evidence"].endswith("(still open: its path is no longer claimed)")
    dropped = "src/keys.py: claimed at stage entry but no longer claimed by any unit"
    assert any(dropped in f["finding"] for f in second["findings"] if f["status"] == "open")
    code, out = _verify(ws, capsys)
    assert code == 1 and f"stale: {dropped}\n" in out
    assert _approve(ws) == 1


SILENCERS = {
    ".secrets.baseline": '{"results": {}}\n',
    ".ruff.toml": '[lint]\nignore = ["F401"]\n',
    ".coveragerc": "[report]\nfail_under = 0\n",
    "mypy.ini": "[mypy]\nignore_errors = True\n",
    "setup.cfg": "[flake8]\nignore = F401\n",
    "tox.ini": "[tox]\nskipsdist = true\n",
}


@pytest.mark.parametrize("git", [True, False], ids=["git", "no-git"])
@pytest.mark.parametrize("config", [*SILENCERS, "pyproject.toml"])
def test_an_unclaimed_config_edit_during_the_loop_blocks_the_verdict(tmp_path, capsys, config, git):
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": LINT_ERROR})
    if not git:
        shutil.rmtree(ws / ".git")
    text = SILENCERS.get(config, (ws / "pyproject.toml").read_text() + "extend-ignore = []\n")
    repairer = script_agent(
        tmp_path / "silence.py",
        f"""
        import pathlib, sys
        sys.stdin.read()
        pathlib.Path("src/orders/app.py").write_text({CLEAN!r})
        pathlib.Path({config!r}).write_text({text!r})
    """,
    )
    assert main(review_args(ws, "--repairer", repairer)) == 1
    second = findings_doc(ws)["passes"][1]
    named = f"{config}: unclaimed source " + ("changed" if config == "pyproject.toml" else "added")
    named += " since the stage-entry baseline"
    [drift] = [f for f in second["findings"] if f["status"] == "open"]
    assert (drift["severity"], drift["source"], drift["path"], drift["finding"]) == (
        "major",
        "runtime",
        config,
        named,
    )
    code, out = _verify(ws, capsys)
    assert code == 1 and f"stale: {named}\n" in out


def test_the_stage_entry_baseline_is_kept_across_attempts(tmp_path, capsys):
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": LINT_ERROR})
    assert main(review_args(ws)) == 1
    write(ws / ".ruff.toml", '[lint]\nignore = ["F401"]\n')
    gate = ["review", "gate", "--workspace", str(ws), "--unit", UNIT, "--request-changes"]
    assert main(gate) == 0
    assert main(review_args(ws)) == 1
    doc = findings_doc(ws)
    assert [(p["attempt"], p["pass"], p["verdict"]) for p in doc["passes"]] == [
        (1, 1, "NOT-READY"),
        (2, 1, "NOT-READY"),
    ]
    assert [f["finding"] for f in doc["passes"][1]["findings"] if f["status"] == "open"] == [
        ".ruff.toml: unclaimed source added since the stage-entry baseline"
    ]


@pytest.mark.parametrize(
    "name, text, wrong",
    [
        (
            "baseline.json",
            "{not json",
            "not JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
        ),
        ("baseline.json", "{}", "$.files: is required"),
        (
            "baseline.json",
            '{"files": {"a.py": 1}, "excluded": []}',
            '$.files["a.py"]: must be a string, got 1',
        ),
        (
            "baseline.json",
            '{"files": {}, "exluded": []}',
            "$.exluded: unknown key (did you mean 'excluded'?)",
        ),
        (
            "code-review-receipt.json",
            "{not json",
            "not JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
        ),
        (
            "code-review-receipt.json",
            "[]",
            "$: must be a mapping, got a list",
        ),
    ],
)
def test_a_corrupt_engine_file_is_bad_input_naming_the_file(tmp_path, capsys, name, text, wrong):
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": CLEAN})
    assert main(review_args(ws)) == 0
    # the receipt is committed with the record; the baseline is machine-local engine state
    folder = ENGINE if name == "baseline.json" else f"aidlc-docs/construction/{UNIT}/code-review"
    broken = ws / folder / name
    broken.write_text(text)
    kind = "stage-entry baseline" if name == "baseline.json" else "receipt"
    expected = f"{broken}: not a valid {kind}: {wrong}; delete it and run `review run` again\n"
    for argv in (review_args(ws), ["review", "verify", "--workspace", str(ws), "--unit", UNIT]):
        capsys.readouterr()
        assert main(argv) == 2
        assert capsys.readouterr().err.endswith(expected)


def test_a_manifest_that_claims_nothing_is_refused(tmp_path, capsys):
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": CLEAN}, claims=[])
    assert main(review_args(ws)) == 2
    assert capsys.readouterr().err == (
        f"{manifest_path(ws)}: $.writes: claims no files: nothing to review\n"
    )
    assert not (ws / "aidlc-docs" / ".aidlc-engine").exists()
    assert json.loads(manifest_path(ws).read_text())["writes"] == []


def test_deleting_the_file_with_the_finding_and_its_claim_resolves_the_finding(tmp_path, capsys):
    ws = make_workspace(tmp_path / "ws", {"src/app.py": CLEAN, "src/keys.py": LEAKY})
    manifest = manifest_path(ws)
    remove = script_agent(
        tmp_path / "remove.py",
        f"""
        import json, pathlib, sys
        sys.stdin.read()
        pathlib.Path("src/keys.py").unlink()
        path = pathlib.Path({str(manifest)!r})
        data = json.loads(path.read_text())
        data["writes"] = [{{"path": "src/app.py"}}]
        path.write_text(json.dumps(data))
    """,
    )
    assert main(review_args(ws, "--repairer", remove)) == 0
    second = findings_doc(ws)["passes"][1]
    assert [(f["check"], f["status"]) for f in second["findings"]] == [("secret-scan", "resolved")]
    assert _verify(ws, capsys)[0] == 0
