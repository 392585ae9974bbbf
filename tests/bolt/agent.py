"""A scripted command agent for the Bolt tests: developer, reviewer and repairer in one.

Usage: agent.py CONFIG.json. Units write text files (``src/<unit>.txt``) so the review's
sensors have only the secret scan to run and the tests stay about the pipeline.
The config maps unit names to behaviour; every invocation appends one JSON line to the
config's "log" file, so tests can count and order them.

Per unit (all optional): "bug": the developer writes a blocking bug; "fix_on_repair": the
repairer removes it; "sleep": seconds the developer waits; "extra": an unclaimed file the
developer also writes; "fail": the developer exits 3 without writing anything; "files": more
files the developer writes, each ``{"path", "text"}`` or ``{"path", "line", "text"}`` (replace
one line of the file as the worktree has it), optionally ``"claim": true`` and
``"executable": true``; "commit": files ``{"path", "text"}`` the developer commits on the
unit branch without claiming them.
"""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

config = json.loads(Path(sys.argv[1]).read_text())
role = os.environ["AIDLC_ROLE"]
unit = os.environ["AIDLC_UNIT"]
workspace = Path(os.environ["AIDLC_WORKSPACE"])
behaviour = config.get("units", {}).get(unit or "(stage)", {})
brief = sys.stdin.read()
source = workspace / "src" / f"{unit or 'stage'}.txt"


def log(**fields):
    entry = {"role": role, "unit": unit, "pid": os.getpid(), "time": time.time(), **fields}
    with open(config["log"], "a") as handle:
        handle.write(json.dumps(entry) + "\n")


def open_reviewer_findings():
    record = Path(os.environ["AIDLC_RECORD"]) / "construction"
    folder = record / unit if unit else record
    findings = folder / "code-review" / "code-review-findings.json"
    if not findings.is_file():
        return []
    passes = json.loads(findings.read_text()).get("passes") or [{}]
    latest = passes[-1].get("findings", [])
    return sorted(
        f["id"] for f in latest if f.get("source") == "reviewer" and f.get("status") == "open"
    )


def target_subjects():
    out = subprocess.run(
        ["git", "-C", config["repo"], "log", "--format=%s", config["target"]],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return out.splitlines()


if role == "developer":
    log(
        event="start",
        workspace=str(workspace),
        seen=sorted(p.name for p in (workspace / "src").glob("*.txt")),
    )
    time.sleep(behaviour.get("sleep", 0))
    if behaviour.get("fail"):
        print("cannot build this unit", file=sys.stderr)
        sys.exit(3)
    source.parent.mkdir(parents=True, exist_ok=True)
    body = "BUG = True\n" if behaviour.get("bug") else "VALUE = 1\n"
    source.write_text(f"# unit {unit}\n{body}")
    writes = [{"path": f"src/{source.name}"}]
    if behaviour.get("extra"):
        (workspace / behaviour["extra"]).write_text("not claimed\n")
    for extra in behaviour.get("files", []):
        path = workspace / extra["path"]
        path.parent.mkdir(parents=True, exist_ok=True)
        if "line" in extra:
            lines = path.read_text().splitlines(keepends=True)
            lines[extra["line"] - 1] = extra["text"] + "\n"
            path.write_text("".join(lines))
        else:
            path.write_text(extra["text"])
        if extra.get("executable"):
            path.chmod(0o755)
        if extra.get("claim"):
            writes.append({"path": extra["path"]})
    for extra in behaviour.get("commit", []):
        (workspace / extra["path"]).write_text(extra["text"])
        git = ["git", "-C", str(workspace)]
        subprocess.run([*git, "add", "--", extra["path"]], check=True)
        subprocess.run([*git, "commit", "-q", "-m", "unclaimed work"], check=True)
    record = Path(os.environ["AIDLC_RECORD"]) / "construction"
    manifest = (record / unit if unit else record) / "code-generation" / "source-manifest.json"
    manifest.parent.mkdir(parents=True, exist_ok=True)
    doc = {"stage": "code-generation", "version": 1, "writes": writes}
    if unit:
        doc["unit"] = unit
    manifest.write_text(json.dumps(doc))
    log(event="end")
elif role == "repairer":
    log(event="repair", passno=os.environ.get("AIDLC_PASS"))
    if behaviour.get("fix_on_repair"):
        source.write_text(source.read_text().replace("BUG = True", "VALUE = 2"))
elif role == "reviewer":
    text = source.read_text()
    log(
        event="review",
        workspace=str(workspace),
        passno=os.environ.get("AIDLC_PASS"),
        merged=[s for s in target_subjects() if s.startswith("bolt(")],
    )
    rel = f"src/{source.name}"
    if "BUG" in text:
        answer = {
            "verdict": "NOT-READY",
            "summary": "A blocking bug is left in the unit.",
            "findings": [
                {
                    "severity": "major",
                    "category": "correctness",
                    "path": rel,
                    "location": "2",
                    "finding": "BUG flag is set",
                    "evidence": "BUG = True",
                    "recommendation": "Remove the flag.",
                }
            ],
        }
    else:
        # this reviewer's earlier findings are gone with the bug: say so for each
        resolved = [{"id": i, "reason": "the BUG flag is gone"} for i in open_reviewer_findings()]
        answer = {"verdict": "READY", "summary": "Looks right.", "findings": []}
        if resolved:
            answer["resolved"] = resolved
    print(json.dumps(answer))
    sys.stdout.flush()
