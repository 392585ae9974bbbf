"""The review's judgment on real packages from the npm registry, each reviewed with its own
tools and configuration (tests/judgment/npm.py): ts-dedent 2.3.0, a TypeScript library
(tsc with noImplicitAny, strictNullChecks and noUnusedLocals; eslint with eslint's and
typescript-eslint's "recommended"; jest through ts-jest), @fastify/error 4.3.0, plain
JavaScript (eslint with neostandard; node's own test runner), and wonka 6.3.6, TypeScript
(tsc strict; prettier 2 installed and configured in package.json; vitest 1 with no coverage
provider; eslint 8 configured through package.json's "eslintConfig").

Issue 34's "Must show", the fast and decisive part (the full corpus, with what each
package's config does not enable, is bench/judgment/bench_npm.py): pristine code is READY;
a seeded defect is one finding at its line that blocks, and a failing test or a tsc error
is never READY. A seed's findings are the open findings the pristine review did not have
(by fingerprint), or those located at the seeded line.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from tests.judgment import npm, pypi
from tests.judgment.npm_seeds import GITHUB_TOKEN, SEEDS, STRIPE_KEY, Seed
from tests.review.workspace import files_holding

BLOCKING = ("critical", "major")
# Each a defect the package's own config sees, one review per seed (8 to 18 s for ts-dedent,
# whose tsc and jest take most of it; 3 to 4 s for @fastify/error; 5 to 11 s for wonka). The
# rest of the corpus, and what each package's config does not see, is in
# bench/judgment/README.md.
ONE_FINDING = (
    "ded-any-return",
    "ded-empty-catch",
    "fe-stripe-key",
    "fe-unused-import",
    "fe-eqeq",
    "fe-eval",
    "fe-null-check",
    "fe-untested-branch",
    "wk-null-check",
    # what the package's config does not ask and the review's security lens does (the
    # project's eslint with the review's own rules, bench/judgment/README.md)
    "ded-eqeq",
    "ded-eval",
    "wk-eval",
)
NEVER_READY = (
    "ded-tsc-error",
    "ded-failing-test",
    "fe-failing-test",
    "wk-tsc-error",
    "wk-failing-test",
)
BY_ID = {s.id: s for s in SEEDS}
SECRETS = (GITHUB_TOKEN, STRIPE_KEY)


@pytest.fixture(scope="session")
def templates(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each pristine package, one unit claiming its sources and tests, committed."""
    root = tmp_path_factory.mktemp("npm")
    return {n: npm.unpack(p, root / n.replace("/", "-")) for n, p in npm.PACKAGES.items()}


@pytest.fixture(scope="session")
def pristine(templates: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Each pristine package reviewed once per worker: exit code, verdict, what blocks, and
    the fingerprints a seed's review leaves out."""
    where = tmp_path_factory.mktemp("pristine")
    reviewed = {}
    for name in templates:
        root = copy_of(templates, name, where)
        code = review(root)
        fingerprints = {f["fingerprint"] for f in findings(root)}
        reviewed[name] = (code, pypi.findings_of(root)["verdict"], blocking(root), fingerprints)
    return reviewed


def copy_of(templates: dict[str, Path], name: str, where: Path) -> Path:
    root = where / name.replace("/", "-")
    shutil.copytree(templates[name], root, symlinks=True)
    return root


def review(root: Path, *extra: str) -> int:
    return main(["review", "run", "--workspace", str(root), "--unit", npm.UNIT, *extra])


def findings(root: Path) -> list[dict]:
    return pypi.final_findings(pypi.findings_of(root))


def blocking(root: Path) -> list[str]:
    """The blocking findings, one line each, for an assertion's message."""
    return [
        f"{f['severity']} {f['path']}:{f['location']} [{','.join(f['checks'])}] {f['finding']}"
        for f in findings(root)
        if f["severity"] in BLOCKING and f["status"] == "open"
    ]


def review_seeded(templates: dict[str, Path], where: Path, seed: Seed) -> tuple[Path, int, int]:
    """A copy with the seed committed on top of the pristine base, reviewed against that
    base: the copy, the review's exit code and the defect's line."""
    root = copy_of(templates, seed.package, where)
    base = _head(root)
    edited = seed.apply({p: (root / p).read_text() for p in seed.paths})
    for rel, text in edited.items():
        (root / rel).write_text(text)
    pypi.commit(root, f"seed {seed.id}")
    return root, review(root, "--base", base), seed.line(edited)


def new_findings(root: Path, known: set[str]) -> list[dict]:
    return [f for f in findings(root) if f["fingerprint"] not in known]


def _brief(found: list[dict]) -> list[tuple]:
    return [(f["path"], f["location"], f["severity"], f["rule"], f["finding"][:120]) for f in found]


@pytest.mark.parametrize("name", sorted(npm.PACKAGES))
def test_the_pristine_package_is_ready_with_its_own_config(pristine: dict, name: str) -> None:
    code, verdict, blocked, _ = pristine[name]
    assert (verdict, blocked) == ("READY", [])
    assert code == 0


@pytest.mark.parametrize("sid", ONE_FINDING)
def test_a_seeded_defect_is_one_blocking_finding_at_its_line(
    templates: dict[str, Path], pristine: dict, tmp_path: Path, sid: str
) -> None:
    seed = BY_ID[sid]
    root, code, line = review_seeded(templates, tmp_path, seed)

    mine = new_findings(root, pristine[seed.package][3])
    assert len(mine) == 1, _brief(mine)
    assert (mine[0]["path"], line in pypi.lines_of(mine[0])) == (seed.at, True), _brief(mine)
    assert (mine[0]["severity"] in BLOCKING, mine[0]["status"]) == (True, "open"), _brief(mine)
    assert (code, pypi.findings_of(root)["verdict"]) == (1, "NOT-READY")
    assert files_holding(root / "aidlc-docs", SECRETS) == [], "a planted key was written"


@pytest.mark.parametrize("sid", NEVER_READY)
def test_a_tsc_error_or_a_failing_test_is_never_ready(
    templates: dict[str, Path], pristine: dict, tmp_path: Path, sid: str
) -> None:
    """Blocking, in the file the defect is in: a tsc error at its line, a failing test at
    the test (jest names the line of its `it(`, node the failing assertion's)."""
    seed = BY_ID[sid]
    root, code, line = review_seeded(templates, tmp_path, seed)

    mine = new_findings(root, pristine[seed.package][3])
    there = [f for f in mine if f["path"] == seed.at and f["severity"] in BLOCKING]
    if "tsc" in seed.enabled:
        there = [f for f in there if line in pypi.lines_of(f)]
    assert there, _brief(mine)
    assert (code, pypi.findings_of(root)["verdict"]) == (1, "NOT-READY")


def test_a_tsc_error_that_also_stops_ts_jest_is_one_finding(
    templates: dict[str, Path], pristine: dict, tmp_path: Path
) -> None:
    seed = BY_ID["ded-tsc-error"]
    root, _, line = review_seeded(templates, tmp_path, seed)
    mine = new_findings(root, pristine[seed.package][3])
    assert [(f["path"], line in pypi.lines_of(f)) for f in mine] == [(seed.at, True)]


def test_an_unformatted_line_is_one_finding_of_the_projects_prettier_and_its_eslint(
    templates: dict[str, Path], pristine: dict, tmp_path: Path
) -> None:
    """wonka installs prettier, configures it in package.json and runs it through eslint
    too (eslint-plugin-prettier, an error): a line prettier would change is one finding at
    that line naming both checks (prettier asked for the file as it would format it), and
    it blocks, as the project's eslint says."""
    seed = BY_ID["wk-formatting"]
    root, code, line = review_seeded(templates, tmp_path, seed)

    mine = new_findings(root, pristine[seed.package][3])
    assert [(f["path"], f["checks"], f["severity"]) for f in mine] == [
        (seed.at, ["formatter", "linter"], "major")
    ], _brief(mine)
    assert line in pypi.lines_of(mine[0]), _brief(mine)
    assert (code, pypi.findings_of(root)["verdict"]) == (1, "NOT-READY")


def test_an_empty_catch_the_packages_config_allows_is_found_by_the_lens_and_holds_nothing_back(
    templates: dict[str, Path], pristine: dict, tmp_path: Path
) -> None:
    """neostandard sets no-empty's allowEmptyCatch; the security lens asks it: a minor
    finding at the line, as ruff's S110 is, and the unit stays READY."""
    seed = BY_ID["fe-empty-catch"]
    root, code, line = review_seeded(templates, tmp_path, seed)

    mine = new_findings(root, pristine[seed.package][3])
    assert [(f["path"], f["checks"], f["severity"], f["rule"]) for f in mine] == [
        (seed.at, ["security"], "minor", "eslint:no-empty")
    ], _brief(mine)
    assert line in pypi.lines_of(mine[0]), _brief(mine)
    assert (code, pypi.findings_of(root)["verdict"]) == (0, "READY")


def _head(root: Path) -> str:
    out = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    )
    return out.stdout.strip()
