"""One reviewer contract: what the installed answer format and persona tell a reviewer, the
brief it gets, and what the runtime does with its answer say the same thing (DESIGN.md §5.2
step 5). A reviewer that follows answer-format.md's own example answers to the letter
converges on a repaired unit, inside upstream's engine with the plugin installed there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from aidlc_review.harness.layout import PROJECT_ROOT
from tests.review.workspace import script_agent
from tests.shared_builds import session_root
from tests.upstream.engine import UpstreamProject, build_once, put_tools_on_path

UNIT = "u1-auth"
RULE = (
    "A reviewer finding stays open until you resolve it by ID under `resolved`; one you "
    'leave out is carried forward, still open and marked "not re-examined", never '
    "silently dropped."
)
ANSWER_FORMAT = ".claude/knowledge/aidlc-code-reviewer-agent/answer-format.md"
PERSONA = ".claude/agents/aidlc-code-reviewer-agent.md"
BRIEF_TEMPLATE = PROJECT_ROOT / "compiler/aidlc_review/templates/reviewer-brief.md.j2"
_RULES = "".join(
    f'def rule_{i}(value: str) -> bool:\n    """Rule {i} of the password policy."""\n'
    f"    return len(value) > {i}\n\n\n"
    for i in range(1, 8)
)
# answer-format.md's example finding is about lines 42-58 of this file: the failed-attempt
# counter read on line 44 and written on line 57, in two steps.
LOGIN = (
    '"""Sign-in with a lockout after repeated failures."""\n\nMAX_FAILURES = 5\n'
    "LOCKOUT_SECONDS = 900\n\n\n" + _RULES + "def login(repo, user: str, password: str) -> bool:\n"
    '    """True when the password matches; counts the failure otherwise."""\n'
    "    count = repo.get(user)\n"
    "    if count >= MAX_FAILURES:\n        return False\n"
    "    if not user or not password:\n        return False\n"
    "    if not rule_1(password):\n        return False\n"
    "    if not rule_2(password):\n        return False\n"
    "    if not rule_3(password):\n        return False\n"
    "    if repo.password_of(user) == password:\n        return True\n"
    "    repo.set(user, count + 1)\n"
    "    return False\n"
)
TWO_STEPS = "repo.set(user, count + 1)"
# The reviewer does exactly what answer-format.md shows: its first example on a first pass;
# on a later pass the example that restates a finding still there, or the one that resolves
# a fixed one, with the IDs the brief lists. Where the format shows no example for a case it
# does what the format's prose says.
LITERAL_REVIEWER = f"""
    import json, os, pathlib, re, sys
    text = pathlib.Path({ANSWER_FORMAT!r}).read_text()
    examples = [json.loads(block) for block in re.findall(r"```json\\n(.*?)```", text, re.S)]
    brief = pathlib.Path(os.environ["AIDLC_BRIEF"]).read_text()
    source = pathlib.Path("src/auth/login.py").read_text()
    pathlib.Path(sys.argv[1]).open("a").write(brief + "\\n\\f\\n")
    restating = [e for e in examples if any("id" in f for f in e["findings"])]
    resolving = [e for e in examples if e.get("resolved")]
    first = next(e for e in examples if e not in restating and e not in resolving)
    earlier = re.findall(r"^- (CR-[0-9]+) \\w+ \\S+ `[^`]+` [(]reviewer", brief, re.M)

    def with_ids(example):
        answer, ids = json.loads(json.dumps(example)), iter(earlier)
        for item in answer["findings"] + answer.get("resolved", []):
            if "id" in item:
                item["id"] = next(ids)
        return answer

    if not earlier:
        answer = first
    elif {TWO_STEPS!r} in source:
        answer = with_ids(restating[0]) if restating else first
    elif resolving:
        answer = with_ids(resolving[0])
    else:  # the prose: leave a fixed finding out of your findings
        answer = {{"verdict": "READY", "summary": first["summary"], "findings": []}}
    pathlib.Path(sys.argv[1] + ".answers").open("a").write(json.dumps(answer) + "\\n")
    print(json.dumps(answer))
"""
REPAIRER = f"""
    import pathlib, sys
    sys.stdin.read()
    login = pathlib.Path("src/auth/login.py")
    login.write_text(login.read_text().replace({TWO_STEPS!r}, "repo.increment(user)"))
"""


@pytest.fixture(scope="session")
def reviewed_project_once(tmp_path_factory) -> UpstreamProject:
    """A fresh upstream project with the plugin installed, an intent born, and one unit's
    source and manifest committed (built once per test run; tests get copies)."""

    def build(where: Path) -> None:
        project = UpstreamProject.fresh(where)
        assert main(["install", "--harness", str(project.harness)]) == 0
        project.birth()  # the engine's own verb: intent-birth (2.5.5), intent-create (2.6.18)
        (project.root / "pyproject.toml").write_text("[tool.ruff]\nline-length = 100\n")
        (project.root / "src/auth").mkdir(parents=True)
        (project.root / "src/auth/login.py").write_text(LOGIN)
        record = next(project.root.glob("aidlc/spaces/default/intents/*/"))
        manifest = record / "construction" / UNIT / "code-generation" / "source-manifest.json"
        manifest.parent.mkdir(parents=True)
        writes = [{"path": "src/auth/login.py"}]
        manifest.write_text(
            json.dumps({"stage": "code-generation", "unit": UNIT, "version": 1, "writes": writes})
        )
        project.git("add", "-A")
        project.git("commit", "-q", "-m", "the plugin, an intent, one unit's source")

    where = session_root(tmp_path_factory) / "reviewer-contract-project"
    return UpstreamProject(build_once(where, build))


@pytest.fixture
def reviewed_project(reviewed_project_once, tmp_path, monkeypatch) -> UpstreamProject:
    put_tools_on_path(monkeypatch)
    return reviewed_project_once.copy_to(tmp_path / "project")


def _review(project: UpstreamProject, tmp_path: Path, repairer: str) -> int:
    # the log of briefs and answers is named on the command line: agents get a scrubbed env
    reviewer = script_agent(tmp_path / "agents/reviewer.py", LITERAL_REVIEWER)
    reviewer += f" {tmp_path / 'briefs.txt'}"
    return main(
        [
            "review", "run", "--workspace", str(project.root), "--unit", UNIT,
            "--reviewer", reviewer, "--repairer", repairer, "--json",
        ]
    )  # fmt: skip


def _findings(project: UpstreamProject) -> dict:
    record = next(project.root.glob("aidlc/spaces/default/intents/*/"))
    stage = record / "construction" / UNIT / "code-review"
    return json.loads((stage / "code-review-findings.json").read_text())


def _answers(tmp_path: Path) -> list[dict]:
    return [json.loads(line) for line in (tmp_path / "briefs.txt.answers").read_text().splitlines()]


def _briefs(tmp_path: Path) -> list[str]:
    return (tmp_path / "briefs.txt").read_text().split("\n\f\n")[:-1]


@pytest.mark.engine  # the project is an upstream one (tests/engine_export.py)
def test_a_literal_answer_format_reviewer_converges_on_a_repaired_unit(
    reviewed_project, tmp_path, capsys
):
    repairer = script_agent(tmp_path / "agents/repairer.py", REPAIRER)

    code = _review(reviewed_project, tmp_path, repairer)

    err = capsys.readouterr().err
    doc = _findings(reviewed_project)
    assert [(p["pass"], p["verdict"]) for p in doc["passes"]] == [(1, "NOT-READY"), (2, "READY")]
    assert code == 0, err
    first, second = doc["passes"]
    reviewer_first = [f for f in first["findings"] if f["source"] == "reviewer"]
    assert [(f["id"], f["path"], f["location"], f["status"]) for f in reviewer_first] == [
        ("CR-001", "src/auth/login.py", "42-58", "open")
    ]
    kept = next(f for f in second["findings"] if f["id"] == "CR-001")
    assert (kept["status"], kept["not_re_examined"]) == ("resolved", False)
    assert kept["resolution"]  # the reason from the example answer
    assert "CR-001" in _briefs(tmp_path)[1]  # the ID the reviewer filled in came from the brief


@pytest.mark.engine  # the project is an upstream one (tests/engine_export.py)
def test_a_literal_reviewer_keeps_an_unrepaired_finding_open_by_its_id(
    reviewed_project, tmp_path, capsys
):
    idle = script_agent(tmp_path / "agents/idle.py", "import sys; sys.stdin.read()\n")

    code = _review(reviewed_project, tmp_path, idle)

    doc = _findings(reviewed_project)
    assert code == 1, capsys.readouterr().err
    assert [(p["pass"], p["verdict"]) for p in doc["passes"]] == [
        (1, "NOT-READY"),
        (2, "NOT-READY"),
    ]
    second = {f["id"]: f for f in doc["passes"][1]["findings"] if f["source"] == "reviewer"}
    assert [(i, f["status"], f["not_re_examined"]) for i, f in second.items()] == [
        ("CR-001", "open", False)
    ]
    restated = _answers(tmp_path)[1]["findings"]
    assert [f.get("id") for f in restated] == ["CR-001"]  # by its ID, as the example shows


def _normal(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.engine  # the project is an upstream one (tests/engine_export.py)
def test_answer_format_persona_and_brief_say_the_same_rule(reviewed_project, tmp_path, capsys):
    repairer = script_agent(tmp_path / "agents/repairer.py", REPAIRER)
    assert _review(reviewed_project, tmp_path, repairer) == 0, capsys.readouterr()
    later = _briefs(tmp_path)[1]
    open_section = later.split("## Open findings", 1)[1].split("\n## ", 1)[0]

    texts = {
        "answer-format.md (installed)": (reviewed_project.root / ANSWER_FORMAT).read_text(),
        "the persona (installed)": (reviewed_project.root / PERSONA).read_text(),
        "the brief's open findings": open_section,
        "the brief's template": BRIEF_TEMPLATE.read_text(),
    }

    missing = [name for name, text in texts.items() if _normal(RULE) not in _normal(text)]
    assert missing == []
