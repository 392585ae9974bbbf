"""dependencies, for npm projects: what a change adds to or loosens in ``package.json`` and its
lock files against the base, unless approved. The rules are specified on texts (no git, no
npm: the sensor reads files); one real ``review run`` on a small npm workspace closes it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from aidlc_review.sensors.dependency_changes import approval_problem, approved_by, changes
from aidlc_review.sensors.dependency_files import Declared, read_declarations
from aidlc_review.sensors.npm_dependencies import lock_packages
from aidlc_review.sensors.npm_ranges import NpmRequirement, admits_more, kind_of
from tests.review.workspace import UNIT, findings_doc, write, write_manifest
from tests.sensors.support import make_workspace, run_one


def package_json(dependencies: dict[str, str], dev: dict[str, str] | None = None, **more) -> str:
    data: dict[str, object] = {"name": "shop", "version": "1.0.0", "dependencies": dependencies}
    if dev is not None:
        data["devDependencies"] = dev
    data.update(more)
    return json.dumps(data, indent=2) + "\n"


def loosened(old: str, new: str) -> bool:
    return admits_more(NpmRequirement("lib", old), NpmRequirement("lib", new))


def changed(before: str | None, now: str, path: str = "package.json") -> list[tuple]:
    found = changes(read_declarations(path, before), read_declarations(path, now))
    return [(c.kind, c.group, c.name, c.now, c.before, c.line) for c in found]


# -- package.json: added, loosened, located at the key --------------------------------------


def test_a_new_package_json_entry_is_added_at_the_line_of_its_key() -> None:
    before = package_json({"express": "^4.18.2"}, dev={"vitest": "^1.6.0"})
    now = package_json({"express": "^4.18.2", "left-pad": "^1.3.0"}, dev={"vitest": "^1.6.0"})
    assert changed(before, now) == [
        ("added", "npm:dependencies", "left-pad", "left-pad@^1.3.0", None, 6)
    ]


def test_groups_are_compared_group_by_group() -> None:
    before = package_json({"react": "^18.2.0"})
    now = package_json({"react": "^18.2.0"}, peerDependencies={"react": "^18.2.0"})
    assert changed(before, now) == [
        ("added", "npm:peerDependencies", "react", "react@^18.2.0", None, 8)
    ]


def test_a_file_that_did_not_exist_at_the_base_adds_every_entry() -> None:
    now = package_json({"@scope/ui": "~2.1.0"}, dev={"typescript": "5.4.5"})
    assert [(kind, name, line) for kind, _, name, _, _, line in changed(None, now)] == [
        ("added", "@scope/ui", 5),
        ("added", "typescript", 8),
    ]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("^1.2.3", "^1.2.0"),  # caret lowered
        ("~1.2.3", "^1.2.3"),  # tilde to caret: minors now
        ("~1.2", "~1"),  # partial tilde widened
        ("1.x", ">=1"),  # x-range to an open lower bound
        (">=1 <2", ">=1 <3"),  # upper bound raised
        ("1.2.3 - 2.3.4", "1.2.3 - 2.4"),  # hyphen range's top raised
        ("^1.0.0", "^1.0.0 || ^2.0.0"),  # another major by ||
        ("^1.0.0", "*"),
        ("^1.0.0", ""),  # empty means any version
        ("1.2.3", "^1.2.3"),  # an exact pin opened
        (">=1.2.3", ">=1.2.3-beta.1"),  # a prerelease the old range did not take
        ("^0.2.3", "^0.2"),  # zero-major caret lowered
        ("^1.0.0", "latest"),  # a range became a dist-tag: whatever it points at
        ("latest", "next"),  # another tag
        ("^1.0.0", "git+https://example.invalid/lib.git"),  # changed source
        ("^1.0.0", "github:someone/lib"),
        ("^1.0.0", "file:../lib"),
        ("npm:real-lib@^1.0.0", "npm:other-lib@^1.0.0"),  # alias to another package
        ("npm:real-lib@^1.2.0", "npm:real-lib@^1.0.0"),  # same alias, wider range
    ],
)
def test_a_spec_that_admits_a_version_or_source_the_old_one_did_not_is_loosened(
    old: str, new: str
) -> None:
    assert loosened(old, new)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("^1.2.0", "^1.2.3"),  # raised lower bound
        ("^1.2.3", "~1.2.3"),  # caret to tilde
        (">=1", "1.x"),
        ("1.x", ">=1.0.0 <2.0.0"),  # the same set written otherwise
        ("1.2.3", "=1.2.3"),
        ("1.2.3", "v1.2.3"),
        ("*", "^1.0.0"),
        ("latest", "^4.0.0"),  # a tag could point anywhere; a range admits no more
        ("*", "latest"),
        ("^1.0.0 || ^2.0.0", "^2.0.0"),
        ("npm:real-lib@^1.0.0", "npm:real-lib@^1.2.0"),
        ("^1.0.0", "^1.0.0"),
    ],
)
def test_a_tightened_or_equivalent_spec_is_not_loosened(old: str, new: str) -> None:
    assert not loosened(old, new)


def test_a_loosened_entry_names_both_specs_at_its_line() -> None:
    before = package_json({"express": "^4.18.2"}, dev={"vitest": "~1.6.0"})
    now = package_json({"express": "^4.18.2"}, dev={"vitest": ">=1.6.0"})
    assert changed(before, now) == [
        ("loosened", "npm:devDependencies", "vitest", "vitest@>=1.6.0", "vitest@~1.6.0", 8)
    ]


@pytest.mark.parametrize(
    ("spec", "kind"),
    [
        ("^1.2.3", "range"),
        (">= 1.2", "range"),
        ("", "range"),
        ("latest", "tag"),
        ("beta", "tag"),
        ("npm:lodash@^4", "alias"),
        ("git+ssh://git@example.invalid/a.git", "source"),
        ("someone/lib", "source"),
        ("workspace:^1.0.0", "source"),
        ("https://example.invalid/lib-1.0.0.tgz", "source"),
    ],
)
def test_each_spec_is_read_as_npm_reads_it(spec: str, kind: str) -> None:
    assert kind_of(spec) == kind


def test_an_entry_that_is_not_a_string_is_unreadable_at_its_line() -> None:
    now = package_json({"express": "^4.18.2", "odd": {"version": "1"}})  # type: ignore[dict-item]
    assert changed(package_json({"express": "^4.18.2"}), now) == [
        ("unreadable", "", "", '"dependencies": "odd": {"version": "1"}', None, 6)
    ]


# -- bad JSON: an unreadable finding at the file's line, never a pass ------------------------


def test_package_json_that_is_not_valid_json_is_unreadable_at_the_line_it_breaks() -> None:
    broken = '{\n  "name": "shop",\n  "dependencies": {\n    "express": "^4"\n    "x": "1"\n}\n'
    assert changed(package_json({"express": "^4"}), broken) == [
        (
            "unreadable",
            "file",
            "",
            "not valid JSON: Expecting ',' delimiter (column 5)",
            None,
            5,
        )
    ]


def test_a_lock_file_that_does_not_parse_is_unreadable_too() -> None:
    assert changed(None, '{"packages": {', "package-lock.json")[0][:2] == ("unreadable", "file")
    pnpm = "lockfileVersion: '9.0'\npackages:\n  a@1.0.0: {\n"
    [(kind, group, _, reason, _, line)] = changed(None, pnpm, "pnpm-lock.yaml")
    assert (kind, group, line) == ("unreadable", "file", 4)
    assert reason.startswith("not valid YAML: ")


# -- lock files: the package names they hold -------------------------------------------------

PACKAGE_LOCK = {
    "name": "shop",
    "lockfileVersion": 3,
    "packages": {
        "": {"name": "shop", "dependencies": {"express": "^4.18.2"}},
        "node_modules/express": {"version": "4.19.2"},
        "node_modules/express/node_modules/debug": {"version": "2.6.9"},
        "node_modules/@types/node": {"version": "20.12.7", "dev": True},
        "packages/ui": {"name": "@shop/ui", "version": "0.1.0"},
        "node_modules/@shop/ui": {"resolved": "packages/ui", "link": True},
    },
}
YARN_CLASSIC = """\
# THIS IS AN AUTOGENERATED FILE. DO NOT EDIT THIS FILE DIRECTLY.
# yarn lockfile v1


"@types/node@^20.0.0", "@types/node@^20.12.0":
  version "20.12.7"
  resolved "https://registry.example.invalid/@types/node/-/node-20.12.7.tgz"

express@^4.18.2:
  version "4.19.2"
"""
YARN_BERRY = """\
__metadata:
  version: 8
  cacheKey: 10c0

"express@npm:^4.18.2":
  version: 4.19.2
  resolution: "express@npm:4.19.2"

"shop@workspace:.":
  version: 0.0.0-use.local
  resolution: "shop@workspace:."
"""
PNPM_9 = """\
lockfileVersion: '9.0'
importers:
  .:
    dependencies:
      express:
        specifier: ^4.18.2
        version: 4.19.2
packages:
  express@4.19.2:
    resolution: {integrity: sha512-x}
  '@types/node@20.12.7':
    resolution: {integrity: sha512-y}
"""
PNPM_6 = (
    "lockfileVersion: '6.0'\npackages:\n  /express@4.19.2(supports-color@8.1.1):\n    dev: false\n"
)
PNPM_5 = (
    "lockfileVersion: 5.4\npackages:\n  /@types/node/20.12.7_typescript@5.4.5:\n    dev: true\n"
)


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        (
            "package-lock.json",
            json.dumps(PACKAGE_LOCK),
            [("express", "4.19.2"), ("debug", "2.6.9"), ("@types/node", "20.12.7")],
        ),
        (
            "npm-shrinkwrap.json",
            json.dumps({"lockfileVersion": 1, "dependencies": {"a": {"version": "1.0.0"}}}),
            [("a", "1.0.0")],
        ),
        ("yarn.lock", YARN_CLASSIC, [("@types/node", "20.12.7"), ("express", "4.19.2")]),
        ("yarn.lock", YARN_BERRY, [("express", "4.19.2")]),
        ("pnpm-lock.yaml", PNPM_9, [("express", "4.19.2"), ("@types/node", "20.12.7")]),
        ("pnpm-lock.yaml", PNPM_6, [("express", "4.19.2")]),
        ("pnpm-lock.yaml", PNPM_5, [("@types/node", "20.12.7")]),
    ],
)
def test_every_npm_lock_format_names_its_packages_and_not_the_project_itself(
    name: str, text: str, expected: list[tuple[str, str]]
) -> None:
    assert lock_packages(name, text) == expected


def test_a_lock_file_adds_the_names_new_since_the_base() -> None:
    before = YARN_CLASSIC
    now = YARN_CLASSIC + 'left-pad@^1.3.0:\n  version "1.3.0"\n'
    assert [(c[0], c[3]) for c in changed(before, now, "yarn.lock")] == [
        ("added", "left-pad@1.3.0")
    ]


# -- approval ----------------------------------------------------------------------------------


def declared(spec: str, name: str = "lodash", group: str = "npm:dependencies") -> Declared:
    return Declared(group, NpmRequirement(name, spec), 3)


@pytest.mark.parametrize(
    ("approvals", "spec", "approval"),
    [
        (["lodash"], "^4.17.21", "lodash"),  # a bare name: any version
        (["lodash"], "git+https://example.invalid/lodash.git", "lodash"),  # any source
        (["lodash@^4"], "^4.17.21", "lodash@^4"),  # within the approved range
        (["lodash@^4"], "4.17.21", "lodash@^4"),  # a lock entry's exact version
        (["lodash@^4"], "^3.0.0", None),  # outside it
        (["lodash@^4"], "*", None),  # admits what the entry does not
        (["lodash@^4"], "latest", None),
        (["lodash@^4"], "npm:lodash-es@^4", None),
        (["requests>=2", "lodash-es"], "^4.17.21", None),  # other names
    ],
)
def test_an_approval_covers_a_spec_that_admits_nothing_the_entry_does_not(
    approvals: list[str], spec: str, approval: str | None
) -> None:
    assert approved_by(declared(spec), approvals) == approval


def test_a_scoped_package_is_approved_by_its_scoped_name() -> None:
    assert approved_by(declared("^20.1.0", "@types/node"), ["@types/node@^20"]) == (
        "@types/node@^20"
    )


def test_an_approval_entry_must_read_as_python_or_npm() -> None:
    assert approval_problem("@types/node@^20") is None
    assert approval_problem("requests>=2,<3") is None
    assert (
        approval_problem("@@nope") == "Expected package name at the start of dependency specifier"
    )


# -- end to end: the sensor on a git workspace, and a real review run ------------------------

BASE = {"express": "^4.18.2", "zod": "~3.22.4"}
CHANGED = {"express": "^4.18.2", "left-pad": "^1.3.0", "zod": "^3.0.0"}


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
        check=True,
        capture_output=True,
    )


def npm_workspace(root: Path, approvals: list[str] | None = None) -> Path:
    settings = {"aidlc-review": {"approved-dependencies": approvals}} if approvals else {}
    make_workspace(root, {"package.json": package_json(BASE, **settings)})
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    return root


def test_the_sensor_reports_the_added_and_the_loosened_entry_at_their_lines(
    tmp_path: Path,
) -> None:
    root = npm_workspace(tmp_path / "shop")
    (root / "package.json").write_text(package_json(CHANGED))
    result = run_one(root, ["package.json"], "dependencies")
    assert [(f.path, f.line, f.rule, f.severity, f.message) for f in result.findings] == [
        (
            "package.json",
            6,
            "dependencies/added",
            "major",
            "added dependency left-pad@^1.3.0 (package.json dependencies), "
            "not on the approved list",
        ),
        (
            "package.json",
            7,
            "dependencies/loosened",
            "major",
            "loosened dependency zod: zod@~3.22.4 -> zod@^3.0.0 (package.json dependencies), "
            "not on the approved list",
        ),
    ]


def test_bad_json_in_a_claimed_package_json_is_a_finding_never_a_pass(tmp_path: Path) -> None:
    root = npm_workspace(tmp_path / "shop")
    (root / "package.json").write_text('{\n  "dependencies": {\n    "zod": "^3"\n  \n')
    result = run_one(root, ["package.json"], "dependencies")
    assert result.status == "failed" and result.blocking
    assert [(f.line, f.rule, f.message) for f in result.findings] == [
        (
            5,
            "dependencies/unreadable",
            "package.json cannot be read (not valid JSON: Expecting ',' delimiter (column 1)): "
            "none of its dependencies was checked, review it by hand",
        )
    ]


def test_a_lock_file_reports_what_it_adds_beyond_package_json(tmp_path: Path) -> None:
    root = npm_workspace(tmp_path / "shop", approvals=["left-pad", "zod@^3"])
    lock = {"lockfileVersion": 3, "packages": {"node_modules/express": {"version": "4.19.2"}}}
    make_workspace(root, {"package-lock.json": json.dumps(lock, indent=2)})
    git(root, "add", "-A")
    git(root, "commit", "-qm", "lock")
    lock["packages"].update(
        {
            "node_modules/left-pad": {"version": "1.3.0"},
            "node_modules/zod": {"version": "3.23.8"},
            "node_modules/is-odd": {"version": "3.0.1"},
        }
    )
    (root / "package.json").write_text(
        package_json(CHANGED, **{"aidlc-review": {"approved-dependencies": ["left-pad", "zod@^3"]}})
    )
    (root / "package-lock.json").write_text(json.dumps(lock, indent=2))
    result = run_one(root, ["package.json", "package-lock.json"], "dependencies")
    assert [(f.path, f.message) for f in result.findings] == [
        (
            "package-lock.json",
            "the lock file adds 1 package(s) no claimed declaration adds and the approved "
            "list does not cover: is-odd@3.0.1",
        )
    ]
    assert result.details["approved"] == [
        "package.json: left-pad@^1.3.0 (approved: left-pad)",
        "package.json: zod@^3.0.0 (approved: zod@^3)",
    ]


def test_approvals_are_read_from_the_aidlc_review_toml_at_the_base(tmp_path: Path) -> None:
    root = npm_workspace(tmp_path / "shop")
    (root / ".aidlc-review.toml").write_text('approved-dependencies = ["left-pad", "zod"]\n')
    (root / "package.json").write_text(package_json(CHANGED))
    before = run_one(root, ["package.json"], "dependencies")
    assert len(before.findings) == 2
    assert before.findings[0].message.endswith(
        "; only this change lists it in approved-dependencies, and an approval counts once "
        "it is on the base revision (HEAD)"
    )
    git(root, "add", ".aidlc-review.toml")
    git(root, "commit", "-qm", "approve")
    assert run_one(root, ["package.json"], "dependencies").findings == ()


def review(root: Path) -> int:
    return main(["review", "run", "--workspace", str(root), "--unit", UNIT])


def open_dependency_findings(root: Path) -> list[tuple[str, str | None, str, str]]:
    return [
        (f["path"], f["location"], f["rule"], f["severity"])
        for f in findings_doc(root)["passes"][-1]["findings"]
        if f["check"] == "dependencies" and f["status"] == "open"
    ]


@pytest.mark.parametrize("approved", [False, True])
def test_a_review_run_on_an_npm_workspace_judges_its_package_json_by_the_base(
    tmp_path: Path, approved: bool
) -> None:
    root = tmp_path / "shop"
    write_manifest(root, ["package.json"])
    npm_workspace(root, approvals=["left-pad@^1", "zod@^3"] if approved else None)
    settings = json.loads((root / "package.json").read_text()).get("aidlc-review")
    extra = {"aidlc-review": settings} if settings else {}
    write(root / "package.json", package_json(CHANGED, **extra))

    code = review(root)

    if approved:
        assert code == 0
        assert open_dependency_findings(root) == []
        checks = {c["name"]: c for c in findings_doc(root)["checks"]}
        assert checks["dependencies"]["status"] == "passed"
    else:
        assert code == 1
        assert open_dependency_findings(root) == [
            ("package.json", "6", "dependencies/added", "major"),
            ("package.json", "7", "dependencies/loosened", "major"),
        ]
