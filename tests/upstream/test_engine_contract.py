"""Install never breaks the engine: it reads the engine's version and stage schema, lowers for
what that schema accepts, refuses an engine newer than the verified ones unless forced, and
lets upstream's own compile and doctor judge what it wrote, restoring every byte when they
object. The engines here are copies of ``../shared/aidlc-upstream`` (2.5.5) edited the way
newer upstream releases differ (DESIGN.md §8, Versions): no runnable newer engine exists.
On either export (2.5.5, 2.6.18) the edits are the same: a key and its rule added to the stage
schema, the version raised past the verified ones."""

from __future__ import annotations

import re
import shutil

import pytest
from tests.upstream.engine import UpstreamProject

from aidlc_review.cli.main import main

pytestmark = pytest.mark.engine  # runs upstream's engine (tests/engine_export.py)

SCHEMA = "tools/aidlc-stage-schema.ts"
DOCTOR = "tools/aidlc-utility.ts"
REVIEW_STAGE = "aidlc-common/stages/construction/code-review.md"


def _files(project: UpstreamProject) -> dict[str, bytes]:
    """Every file of the project outside .git, by path: what a byte-for-byte check compares."""
    return {
        p.relative_to(project.root).as_posix(): p.read_bytes()
        for p in sorted(project.root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(project.root).parts
    }


def _require(project: UpstreamProject, key: str, named: str, value: str | None = None) -> None:
    """A stage schema with ``key`` among its keys, required on every stage with a reviewer
    (``named``: what its value must be, a JavaScript condition on ``v``); the engine's own
    reviewed stages get the key (``value``, else their first produces entry), as a release
    adding such a rule ships them, and the engine's graph is recompiled: green before any
    install."""
    schema = project.harness / SCHEMA
    text = schema.read_text()
    listed = '"reviewer_max_iterations",'
    anchor = '  checkPositiveInteger(o, "reviewer_max_iterations", errors);\n'
    assert listed in text and anchor in text and f'"{key}"' not in text
    rule = (
        '  if ("reviewer" in o && o.reviewer !== undefined) {\n'
        f"    const v = o.{key};\n"
        f'    if (!({named})) errors.push("reviewer requires a valid {key}");\n'
        "  }\n"
    )
    text = text.replace(listed, f'"reviewer_max_iterations", "{key}",', 1)
    schema.write_text(text.replace(anchor, anchor + rule, 1))
    for stage in sorted((project.harness / "aidlc-common/stages").rglob("*.md")):
        source = stage.read_text()
        reviewer = re.search(r"^reviewer: .*\n", source, re.M)
        if reviewer and f"\n{key}:" not in source:
            first = re.search(r"^produces:\n  - (\S+)", source, re.M)
            assert first, stage
            line = f"{key}: {value or first.group(1)}\n"
            stage.write_text(source[: reviewer.end()] + line + source[reviewer.end() :])
    project.ok("graph", "compile")
    _assert_green(project)
    project.git("add", "-A")
    project.git("commit", "-q", "-m", f"an engine whose reviewed stages name {key}")


def _set_version(project: UpstreamProject, version: str) -> None:
    path = project.harness / "tools/aidlc-version.ts"
    text, count = re.subn(
        r'AIDLC_VERSION = "[^"]*"', f'AIDLC_VERSION = "{version}"', path.read_text()
    )
    assert count == 1
    path.write_text(text)
    project.git("commit", "-q", "-am", f"engine {version}")


def _assert_green(project: UpstreamProject) -> None:
    compiled = project.tool("graph", "compile", "--check")
    assert compiled.code == 0, compiled.stderr
    assert re.fullmatch(r"\d+ passed, 0 failed", project.doctor_summary())


@pytest.fixture
def engine_2_7(project) -> UpstreamProject:
    """upstream 2.7's rule: ``reviewer:`` needs ``review_artifact:`` naming a produces entry."""
    _require(project, "review_artifact", 'typeof v === "string" && o.produces.includes(v)')
    _set_version(project, "2.7.0")
    return project


def test_an_engine_newer_than_the_verified_ones_is_refused(engine_2_7, capsys):
    before = _files(engine_2_7)

    assert main(["install", "--harness", str(engine_2_7.harness)]) == 1

    err = capsys.readouterr().err
    assert err == (
        f"{engine_2_7.harness / 'tools/aidlc-version.ts'}: upstream's engine is 2.7.0, newer "
        "than the engines this plugin is verified with (2.5.x, 2.6.x); refusing to install. "
        "`aidlc-review install --force` installs anyway: upstream's compile and doctor still "
        "judge the result, and it is rolled back byte for byte if they object\n"
    )
    assert _files(engine_2_7) == before


def test_forced_install_lowers_review_artifact_where_the_schema_requires_it(engine_2_7):
    assert main(["install", "--harness", str(engine_2_7.harness), "--force"]) == 0

    _assert_green(engine_2_7)
    stage = (engine_2_7.harness / REVIEW_STAGE).read_text()
    assert re.search(
        r"^reviewer: aidlc-code-reviewer-agent\nreviewer_max_iterations: 2\n"
        r"review_artifact: code-review\n",
        stage,
        re.M,
    )
    assert main(["uninstall", "--harness", str(engine_2_7.harness)]) == 0
    assert engine_2_7.status() == ""


def test_an_install_upstreams_compile_rejects_is_rolled_back_byte_for_byte(project, capsys):
    # a rule this plugin does not lower for: every reviewed stage says ``ars: true`` (a key
    # the plugin's model knows and neither engine's schema lists)
    _require(project, "ars", 'v === true || v === "true"', "true")
    before = _files(project)

    assert main(["install", "--harness", str(project.harness)]) == 1

    err = capsys.readouterr().err
    assert f"{project.harness}: upstream's engine objected, so every file is back as it was" in err
    assert (
        f"{project.harness / REVIEW_STAGE}: schema validation failed: "
        "reviewer requires a valid ars" in err
    )
    assert _files(project) == before
    assert project.status() == ""
    _assert_green(project)


def test_an_install_upstreams_doctor_rejects_is_rolled_back_byte_for_byte(project, capsys):
    # a doctor (a newer one, say) that fails a check once code-review is in the scope grid:
    # compile and the generators pass, so their output has to go back too
    doctor = project.harness / DOCTOR
    anchor = "  // Keyword overlap"
    check = (
        "  results.push({ pass: loadScopeMapping().feature?.stages?.['code-review'] === "
        'undefined, label: "Known stages: code-review is not one of this engine\'s" });\n'
    )
    text = doctor.read_text()
    assert text.count(anchor) == 1
    doctor.write_text(text.replace(anchor, check + anchor))
    project.git("commit", "-q", "-am", "a doctor with one more check")
    before = _files(project)

    assert main(["install", "--harness", str(project.harness)]) == 1

    err = capsys.readouterr().err
    assert "  Known stages: code-review is not one of this engine's" in err
    assert _files(project) == before
    assert not (project.harness / "skills/aidlc-code-review").exists()
    _assert_green(project)


def test_a_check_the_doctor_failed_before_install_is_not_held_against_it(project):
    shutil.rmtree(project.root / "aidlc/spaces/default/memory")  # a project's own failure
    failing = "workspace shell ready (.claude/ + aidlc/spaces/default/memory/)"
    assert project.doctor_summary().endswith(" passed, 1 failed")

    assert main(["install", "--harness", str(project.harness)]) == 0

    doctor = project.tool("aidlc", "doctor").stdout
    assert [line for line in doctor.splitlines() if line.startswith("✗")] == [
        f"✗  {failing} — copy the workspace shell from `dist/claude/` into your project root"
    ]
