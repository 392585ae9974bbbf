"""Any other language: a tool the project declares with a standard report format.

A shell-script unit is judged by shellcheck (checkstyle XML), declared in the project's
``.aidlc-review.toml`` and read at the base like every setting; its rule ids are
``shellcheck:SC2115``, tuned in the same table as any other tool's.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from aidlc_review.cli.main import main
from aidlc_review.sensors.formats import sarif
from tests.review.workspace import UNIT, findings_doc, make_workspace

DECLARED = """\
[[tools]]
check = "linter"
argv = ["shellcheck", "-f", "checkstyle"]
files = "**/*.sh"
format = "checkstyle-xml"

[severity.rules]
"shellcheck:SC2115" = "major"
"""
DEPLOY = '#!/bin/sh\nrm -rf "$DIR"/*\n'
UNSAFE = "#!/bin/sh\nrm -rf $DIR/*\n"


def test_a_declared_tool_judges_the_files_no_descriptor_takes(tmp_path: Path) -> None:
    ws = make_workspace(
        tmp_path / "ws", {"deploy/clean.sh": DEPLOY, ".aidlc-review.toml": DECLARED},
        claims=["deploy/clean.sh"],
    )  # fmt: skip
    (ws / "deploy/clean.sh").write_text(UNSAFE)

    assert main(["review", "run", "--workspace", str(ws), "--unit", UNIT]) == 1

    found = [
        (f["check"], f["rule"], f["severity"], f["path"])
        for f in findings_doc(ws)["passes"][-1]["findings"]
    ]
    assert ("linter", "shellcheck:SC2115", "major", "deploy/clean.sh") in found


def test_a_tool_the_change_declares_does_not_judge_it(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", {"deploy/clean.sh": UNSAFE}, claims=["deploy/clean.sh"])
    (ws / ".aidlc-review.toml").write_text(DECLARED.replace("major", "minor"))

    main(["review", "run", "--workspace", str(ws), "--unit", UNIT])

    checks = {c["name"]: c for c in findings_doc(ws)["passes"][-1]["checks"]}
    assert checks["linter"]["status"] == "skipped"  # the base declares no tool for .sh


def test_sarif_reports_are_read_from_a_real_tools_output(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("import os\n")
    ruff = Path(sys.executable).with_name("ruff")
    done = subprocess.run(
        [str(ruff), "check", "--isolated", "--select", "F401", "--output-format", "sarif",
         "--exit-zero", str(tmp_path / "m.py")],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    [hit] = sarif(done.stdout)
    assert (hit.path, hit.line, hit.rule, hit.level) == (str(tmp_path / "m.py"), 1, "F401", "error")
    assert hit.message == "`os` imported but unused"
