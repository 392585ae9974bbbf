"""Spec of ``review.source.baseline``: the sealed stage-entry baseline, drift from it and git."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from aidlc_review.errors import InvalidInput
from aidlc_review.fsio import sha256_file
from aidlc_review.review.inputs.paths import RecordPaths
from aidlc_review.review.record.seal import ForgedState
from aidlc_review.review.source.baseline import (
    Baseline,
    OtherClaims,
    cannot_silence,
    claims_of_other_units,
    drift,
    ensure_baseline,
    load_baseline,
    own_claims,
)
from tests.review.workspace import (
    CLEAN,
    UNIT,
    make_workspace,
    manifest_path,
    review_args,
    write,
    write_manifest,
)

APP = "src/orders/app.py"
OTHER = "u2-billing"
PAY = "src/billing/pay.py"
NO_REVIEW = f" (claimed by {OTHER}, which has no review covering it)"


def head(root: Path) -> str:
    done = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True)
    return done.stdout.decode().strip()


def entered(root: Path, claimed: list[str] | None = None, base: str | None = None) -> Baseline:
    paths = RecordPaths.resolve(root, UNIT)
    return ensure_baseline(paths, [paths.record], claimed or [APP], base)


def drifted(root: Path, baseline: Baseline, in_pass: bool = False) -> list[tuple[str, str]]:
    return drift(RecordPaths.resolve(root, UNIT), baseline, {APP}, in_pass=in_pass)


def test_the_first_pass_records_the_source_the_claims_and_the_base(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", {APP: CLEAN, "README.md": "# orders\n"}, claims=[APP])
    baseline = entered(ws, ["src/z.py", APP])
    assert baseline == Baseline(
        base=head(ws),
        base_given=False,
        claimed=["src/orders/app.py", "src/z.py"],
        excluded=["aidlc-docs"],
        files={p: sha256_file(ws / p) for p in ("README.md", "pyproject.toml", APP)},
        others_claimed=[],
    )
    assert load_baseline(RecordPaths.resolve(ws, UNIT)) == baseline


def test_a_later_pass_gets_the_baseline_of_the_first_not_a_new_one(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", {APP: CLEAN})
    first = entered(ws)
    write(ws / "src/added.py", CLEAN)
    again = entered(ws, ["src/added.py"])
    assert again == first and "src/added.py" not in again.files
    assert again.digest == first.digest
    assert again.model_copy(update={"files": {APP: "sha256:x"}}).digest != first.digest


def test_a_given_base_revision_is_recorded_as_given(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", {APP: CLEAN})
    baseline = entered(ws, base="main")
    assert (baseline.base, baseline.base_given) == (head(ws), True)


def test_an_unknown_base_revision_is_bad_input_and_records_nothing(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", {APP: CLEAN})
    with pytest.raises(InvalidInput) as refused:
        entered(ws, base="release-9")
    assert str(refused.value) == f"base-revision 'release-9': not a commit in {ws}"
    assert load_baseline(RecordPaths.resolve(ws, UNIT)) is None


def test_outside_git_the_baseline_has_no_base_and_no_git_drift(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    write(ws / APP, CLEAN)
    write_manifest(ws, [APP])
    baseline = entered(ws)
    assert (baseline.base, sorted(baseline.files)) == (None, [APP])
    write(ws / "src/new.py", CLEAN)
    assert drifted(ws, baseline) == [
        ("src/new.py", "src/new.py: unclaimed source added since the stage-entry baseline")
    ]


def test_a_baseline_that_is_not_json_is_bad_input_saying_what_to_do(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", {APP: CLEAN})
    paths = RecordPaths.resolve(ws, UNIT)
    write(paths.baseline, "{not json")
    with pytest.raises(InvalidInput) as refused:
        load_baseline(paths)
    assert str(refused.value) == (
        f"{paths.baseline}: not a valid stage-entry baseline: not JSON: Expecting property "
        "name enclosed in double quotes: line 1 column 2 (char 1); "
        "delete it and run `review run` again"
    )


def test_a_baseline_rewritten_after_it_was_sealed_is_refused_as_forged(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", {APP: CLEAN})
    paths = RecordPaths.resolve(ws, UNIT)
    baseline = entered(ws)
    widened = baseline.model_copy(update={"files": {**baseline.files, "src/planted.py": "x"}})
    paths.baseline.write_text(widened.model_dump_json())
    with pytest.raises(ForgedState) as refused:
        load_baseline(paths)
    shown = f"aidlc-docs/.aidlc-engine/code-review/{UNIT}/baseline.json"
    assert str(refused.value).startswith(f"{shown}: its seal does not match: ")


def test_unclaimed_additions_changes_and_deletions_are_drift_in_path_order(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", {APP: CLEAN, "README.md": "# orders\n"}, claims=[APP])
    baseline = entered(ws)
    write(ws / APP, CLEAN + "\nEXTRA = 1\n")  # claimed: the unit's own change
    write(ws / "pyproject.toml", "[tool.ruff]\nline-length = 300\n")
    (ws / "README.md").unlink()
    write(ws / "src/other.py", CLEAN)
    assert drifted(ws, baseline) == [
        ("README.md", "README.md: unclaimed source deleted since the stage-entry baseline"),
        (
            "pyproject.toml",
            "pyproject.toml: unclaimed source changed since the stage-entry baseline",
        ),
        ("src/other.py", "src/other.py: unclaimed source added since the stage-entry baseline"),
    ]


def test_the_record_tool_leftovers_and_ci_configs_are_not_drift(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", {APP: CLEAN})
    baseline = entered(ws)
    write(ws / "aidlc-docs/notes.md", "# notes\n")
    write(ws / ".coverage", "data")
    write(ws / "src/orders/__pycache__/app.cpython-311.pyc", "bytecode")
    write(ws / ".github/workflows/ci.yml", "on: push\n")
    write(ws / ".pre-commit-config.yaml", "repos: []\n")
    assert drifted(ws, baseline) == []


@pytest.mark.parametrize(
    "rel, silent",
    [
        (".github/workflows/ci.yml", True),
        (".github/workflows/release.yaml", True),
        (".pre-commit-config.yaml", True),
        (".gitlab-ci.yml", True),
        (".github/workflows/nested/ci.yml", False),
        ("pkg/.pre-commit-config.yaml", False),
        (".github/dependabot.yml", False),
        ("pyproject.toml", False),
        ("ruff.toml", False),
    ],
)
def test_only_ci_workflows_and_hook_configs_cannot_silence_a_sensor(rel: str, silent: bool) -> None:
    assert cannot_silence(rel) is silent


def test_a_claim_dropped_while_the_file_stays_is_drift_but_removing_both_is_not(
    tmp_path: Path,
) -> None:
    files = {APP: CLEAN, "src/orders/util.py": CLEAN, "src/orders/tax.py": CLEAN}
    ws = make_workspace(tmp_path / "ws", files)
    baseline = entered(ws, sorted(files))
    (ws / "src/orders/tax.py").unlink()
    write_manifest(ws, [APP])
    assert drifted(ws, baseline) == [
        (
            "src/orders/util.py",
            "src/orders/util.py: claimed at stage entry but no longer claimed by any unit",
        )
    ]


def test_a_claim_handed_to_an_unreviewed_unit_is_still_this_units_drift(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", {APP: CLEAN, "src/orders/util.py": CLEAN})
    baseline = entered(ws, [APP, "src/orders/util.py"])
    write_manifest(ws, [APP])
    write_manifest(ws, ["src/orders/util.py"], OTHER)
    assert drifted(ws, baseline) == [
        (
            "src/orders/util.py",
            "src/orders/util.py: claimed at stage entry but no longer claimed by this unit"
            + NO_REVIEW,
        )
    ]


def test_what_changed_since_the_git_base_before_the_first_pass_is_drift(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", {APP: CLEAN})
    short = head(ws)[:12]
    write(ws / "pyproject.toml", "[tool.ruff]\nline-length = 300\n")  # before the first pass
    write(ws / "src/generated.py", CLEAN)
    write(ws / "src/orders/new.py", CLEAN)  # claimed: the unit's own
    baseline = entered(ws, [APP, "src/orders/new.py"])
    assert drift(RecordPaths.resolve(ws, UNIT), baseline, {APP, "src/orders/new.py"}) == [
        (
            "pyproject.toml",
            f"pyproject.toml: unclaimed source changed since the unit's base {short}",
        ),
        (
            "src/generated.py",
            f"src/generated.py: unclaimed source untracked since the unit's base {short}",
        ),
    ]


def test_a_base_git_no_longer_has_is_one_drift_entry_saying_so(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", {APP: CLEAN})
    lost = entered(ws).model_copy(update={"base": "0" * 40})
    assert drifted(ws, lost) == [
        ("", "could not compare the workspace with the unit's base 000000000000 (git)")
    ]


def test_the_units_own_claims_are_its_manifests_and_none_when_it_is_broken(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", {APP: CLEAN, "src/orders/util.py": CLEAN}, ["src/orders/"])
    paths = RecordPaths.resolve(ws, UNIT)
    assert own_claims(paths) == {APP, "src/orders/util.py"}
    manifest_path(ws).write_text('{"stage": "code-generation"')
    assert own_claims(paths) == set()


def test_another_units_claim_without_its_own_review_exempts_nothing(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", {APP: CLEAN, PAY: CLEAN}, claims=[APP])
    write_manifest(ws, [PAY], OTHER)
    write(manifest_path(ws, "u3-broken"), "not a manifest")  # skipped, not fatal
    paths = RecordPaths.resolve(ws, UNIT)
    assert claims_of_other_units(paths) == OtherClaims(
        frozenset(), {PAY: [f"{OTHER}, which has no review covering it"]}
    )
    baseline = entered(ws)
    assert baseline.others_claimed == [PAY]
    write(ws / PAY, CLEAN + "\nFEE = 2\n")
    assert drifted(ws, baseline) == [
        (PAY, f"{PAY}: unclaimed source changed since the stage-entry baseline{NO_REVIEW}")
    ]


def test_a_pass_may_wait_on_an_unreviewed_units_untouched_file_but_verify_may_not(
    tmp_path: Path,
) -> None:
    ws = make_workspace(tmp_path / "ws", {APP: CLEAN}, claims=[APP])
    write(ws / PAY, CLEAN)  # generated for u2 before u1's first pass, not committed
    write_manifest(ws, [PAY], OTHER)
    baseline = entered(ws)
    untracked = f"{PAY}: unclaimed source untracked since the unit's base {head(ws)[:12]}"
    assert drifted(ws, baseline, in_pass=True) == []
    assert drifted(ws, baseline, in_pass=False) == [(PAY, untracked + NO_REVIEW)]
    write(ws / PAY, CLEAN + "\nFEE = 2\n")  # touched since stage entry: the wait is over
    changed = f"{PAY}: unclaimed source changed since the stage-entry baseline"
    assert drifted(ws, baseline, in_pass=True) == [(PAY, changed + NO_REVIEW)]


def test_another_units_review_exempts_its_files_only_while_it_covers_their_bytes(
    tmp_path: Path,
) -> None:
    ws = make_workspace(tmp_path / "ws", {APP: CLEAN}, claims=[APP])
    baseline = entered(ws)
    write(ws / PAY, CLEAN)
    write_manifest(ws, [PAY], OTHER)
    assert main(review_args(ws, unit=OTHER)) == 0
    paths = RecordPaths.resolve(ws, UNIT)
    assert claims_of_other_units(paths) == OtherClaims(frozenset({PAY}), {})
    assert drifted(ws, baseline) == []
    write(ws / PAY, CLEAN + "\nFEE = 2\n")
    assert claims_of_other_units(paths) == OtherClaims(
        frozenset(), {PAY: [f"{OTHER}, whose review covers other contents"]}
    )
    added = f"{PAY}: unclaimed source added since the stage-entry baseline"
    assert [reason for _, reason in drifted(ws, baseline)] == [
        f"{added} (claimed by {OTHER}, whose review covers other contents)"
    ]


def test_why_not_names_every_unit_claiming_a_path_or_nothing() -> None:
    claims = OtherClaims(frozenset({"ok.py"}), {"a.py": ["u2, why", "the stage-level run, why"]})
    assert claims.why_not("a.py") == " (claimed by u2, why; claimed by the stage-level run, why)"
    assert claims.why_not("ok.py") == ""
    assert claims.why_not("b.py") == ""
