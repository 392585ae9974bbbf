"""The review's judgment on a real package from PyPI (humanize 4.12.3, its own ruff, mypy
and pytest config), reviewed with the builtin reviewer in the package's own environment.

Issue 23's "Must show": pristine code is READY; with ``--base`` an untouched pre-existing
F401 does not block while a new defect does; one defect that several tools (or detectors)
see is one finding. A seeded defect's findings are the open findings the pristine review
did not have (by fingerprint), or those located at the seeded line.
"""

from __future__ import annotations

import shutil
import string
import subprocess
from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from tests.judgment import pypi
from tests.review.workspace import files_holding

PACKAGE = pypi.PACKAGES["humanize"]
LISTS = "src/humanize/lists.py"
FILESIZE = "src/humanize/filesize.py"
I18N = "src/humanize/i18n.py"
BLOCKING = ("critical", "major")


def _fake(count: int, step: int) -> str:
    """A fixed, random-looking run of letters and digits: assembled at run time so no
    secret-looking literal sits in this file."""
    pool = string.ascii_letters + string.digits
    return "".join(pool[(i * step + 5) % len(pool)] for i in range(count))


GITHUB_TOKEN = "gh" + "p_" + _fake(36, 7)
STRIPE_KEY = "sk" + "_live_" + _fake(24, 5)
PHRASE = "Tr0ub4dor" + "-" + _fake(8, 3)
_PRISTINE: dict[str, set[str]] = {}


@pytest.fixture(scope="session")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The pristine package, one unit claiming its code, committed (once per worker)."""
    return pypi.unpack(PACKAGE, tmp_path_factory.mktemp("pypi") / PACKAGE.name)


@pytest.fixture(scope="session")
def venv() -> Path:
    return pypi.project_venv()


@pytest.fixture
def workspace(tmp_path: Path, template: Path, venv: Path, monkeypatch) -> Path:
    """A fresh copy of the package, with the package developer's PATH and PYTHONPATH."""
    root = tmp_path / PACKAGE.name
    shutil.copytree(template, root, symlinks=True)
    for name, value in pypi.project_env(root, venv).items():
        monkeypatch.setenv(name, value)
    return root


def review(root: Path, *extra: str) -> int:
    return main(["review", "run", "--workspace", str(root), "--unit", pypi.UNIT, *extra])


def open_findings(root: Path) -> list[dict]:
    return pypi.final_findings(pypi.findings_of(root))


def blocking(root: Path) -> list[str]:
    """The blocking findings, one line each, for an assertion's message."""
    return [
        f"{f['severity']} {f['path']}:{f['location']} [{','.join(f['checks'])}] {f['finding']}"
        for f in open_findings(root)
        if f["severity"] in BLOCKING and f["status"] == "open"
    ]


def pristine_fingerprints(template: Path, venv: Path, tmp_path: Path) -> set[str]:
    """The fingerprints of the pristine unit's findings: reviewed once per worker."""
    if "humanize" not in _PRISTINE:
        root = tmp_path / "pristine"
        shutil.copytree(template, root, symlinks=True)
        with pytest.MonkeyPatch.context() as monkeypatch:
            for name, value in pypi.project_env(root, venv).items():
                monkeypatch.setenv(name, value)
            review(root)
        _PRISTINE["humanize"] = {f["fingerprint"] for f in open_findings(root)}
    return _PRISTINE["humanize"]


def edit(root: Path, rel: str, old: str, new: str) -> int:
    """Replace ``old`` (present once) with ``new``; the 1-based line where ``new`` starts."""
    path = root / rel
    text = path.read_text()
    assert text.count(old) == 1, f"{rel}: anchor {old!r} is not there once"
    path.write_text(text.replace(old, new))
    return text[: text.index(old)].count("\n") + 1


def append(root: Path, rel: str, code: str) -> int:
    """Add ``code`` at the end of the module; the line where it starts."""
    path = root / rel
    text = path.read_text().rstrip("\n") + "\n\n\n"
    path.write_text(text + code)
    return text.count("\n") + 1


def _head(root: Path) -> str:
    out = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


def at_line(root: Path, rel: str, line: int) -> list[dict]:
    return [f for f in open_findings(root) if f["path"] == rel and line in pypi.lines_of(f)]


def test_the_pristine_package_is_ready_with_its_own_config(workspace: Path) -> None:
    code = review(workspace)
    doc = pypi.findings_of(workspace)
    assert (doc["verdict"], blocking(workspace)) == ("READY", [])
    assert code == 0


def test_with_base_an_untouched_pre_existing_f401_does_not_block(workspace: Path) -> None:
    unused = edit(
        workspace, LISTS, "TYPE_CHECKING = False\n", "import os\n\nTYPE_CHECKING = False\n"
    )
    base = pypi.commit(workspace, "a pre-existing unused import")
    # the unit's change touches the same file, not the line of the unused import
    edit(workspace, LISTS, '"""Lists related humanization."""', '"""Lists, humanized."""')
    pypi.commit(workspace, "the unit's change")
    code = review(workspace, "--base", base)
    f401 = [f for f in open_findings(workspace) if f["rule"] == "F401" and f["path"] == LISTS]
    assert [(unused in pypi.lines_of(f), f["status"]) for f in f401] == [(True, "pre-existing")]
    assert (pypi.findings_of(workspace)["verdict"], blocking(workspace)) == ("READY", [])
    assert code == 0


def test_with_base_a_new_f401_blocks_beside_the_pre_existing_one(workspace: Path) -> None:
    edit(workspace, LISTS, "TYPE_CHECKING = False\n", "import os\n\nTYPE_CHECKING = False\n")
    base = pypi.commit(workspace, "a pre-existing unused import")
    new = (
        edit(
            workspace,
            FILESIZE,
            "from __future__ import annotations\n",
            "from __future__ import annotations\n\nimport sys\n",
        )
        + 2
    )
    pypi.commit(workspace, "the unit's change")
    assert review(workspace, "--base", base) == 1
    blocked = blocking(workspace)
    assert blocked == [f"major {FILESIZE}:{new} [linter] " + _f401_text("sys")], blocked


def _f401_text(name: str) -> str:
    return f"F401 `{name}` imported but unused (https://docs.astral.sh/ruff/rules/unused-import)"


SECRETS = {
    "github-token": (f'GITHUB_TOKEN = "{GITHUB_TOKEN}"\n', GITHUB_TOKEN),
    "stripe-key": (f'STRIPE_SECRET_KEY = "{STRIPE_KEY}"\n', STRIPE_KEY),
    "password": (f'DB_PASSWORD = "{PHRASE}"\n', PHRASE),
}


@pytest.mark.parametrize("case", sorted(SECRETS))
def test_a_planted_secret_is_one_finding_and_never_written(
    workspace: Path, template: Path, venv: Path, tmp_path: Path, case: str
) -> None:
    known = pristine_fingerprints(template, venv, tmp_path)
    code, value = SECRETS[case]
    base = _head(workspace)
    line = append(workspace, I18N, code)
    pypi.commit(workspace, f"a hard-coded {case}")
    assert review(workspace, "--base", base) == 1
    found = [f for f in open_findings(workspace) if f["fingerprint"] not in known]
    assert [(f["path"], f["location"], f["severity"]) for f in found] == [
        (I18N, str(line), "critical")
    ], found
    written = files_holding(workspace / "aidlc-docs", (value,))
    assert written == [], "the secret was written"


MERGED = {
    # BLE001 and S110 on one handler (the handler runs at import, so it is covered)
    "except-exception-pass": (
        I18N,
        "try:\n"
        '    _FALLBACK = gettext_module.translation("humanize", "/nonexistent")\n'
        "except Exception:\n"
        "    pass\n",
        2,
    ),
    # F821 and mypy's name-defined on one name (a typo in a type; the line runs at import)
    "undefined-name": (LISTS, "_SEEN: list[Itme] = []\n", 0),
}


@pytest.mark.parametrize("case", sorted(MERGED))
def test_one_defect_several_tools_see_is_one_finding(
    workspace: Path, template: Path, venv: Path, tmp_path: Path, case: str
) -> None:
    known = pristine_fingerprints(template, venv, tmp_path)
    rel, code, offset = MERGED[case]
    base = _head(workspace)
    line = append(workspace, rel, code) + offset
    pypi.commit(workspace, case)
    review(workspace, "--base", base)
    here = at_line(workspace, rel, line)
    assert len(here) == 1, [(f["checks"], f["rule"], f["finding"]) for f in here]
    new = [f for f in open_findings(workspace) if f["fingerprint"] not in known]
    assert [f["id"] for f in new] == [here[0]["id"]], [(f["rule"], f["finding"]) for f in new]


def test_a_renamed_function_with_a_stale_caller_is_one_finding(
    workspace: Path, template: Path, venv: Path, tmp_path: Path
) -> None:
    known = pristine_fingerprints(template, venv, tmp_path)
    base = _head(workspace)
    edit(workspace, LISTS, "def natural_list(", "def natural_join(")
    edit(workspace, LISTS, '__all__ = ["natural_list"]', '__all__ = ["natural_join"]')
    pypi.commit(workspace, "rename natural_list; __init__ still imports the old name")
    assert review(workspace, "--base", base) == 1
    new = [f for f in open_findings(workspace) if f["fingerprint"] not in known]
    assert len(new) == 1, [(f["path"], f["location"], f["rule"], f["finding"][:120]) for f in new]
    assert "natural_list" in new[0]["finding"] or "test_lists" in new[0]["finding"]
