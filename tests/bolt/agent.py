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

Attacks on the target repository itself (the developer does them besides its unit's work,
and logs ``{"event": "backdoor", "commit": SHA}``): "target_commit": files it commits straight
onto the target branch in the main workspace; "move_target": files it puts in a commit on
top of the target and moves the branch to with ``git update-ref`` (the main workspace's files
left as they were); "plant_hooks": ``{"names", "marker", "dir"?}`` hook scripts, each appending
its name to the marker file when run, written to the common git dir's ``hooks/`` or, with
"dir", to that directory, which ``core.hooksPath`` is then set to.
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


AS_AGENT = ["-c", "user.name=Planted", "-c", "user.email=planted@agent.invalid"]


def git_out(*args, cwd, env=None, stdin=None):
    return subprocess.run(
        ["git", *AS_AGENT, *args],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        input=stdin,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def commit_onto_target(files):
    repo = config["repo"]
    for extra in files:
        (Path(repo) / extra["path"]).write_text(extra["text"])
        git_out("add", "--", extra["path"], cwd=repo)
    git_out("commit", "-q", "--no-verify", "-m", "a little help", cwd=repo)
    log(event="backdoor", commit=git_out("rev-parse", "HEAD", cwd=repo))


def move_target(files):
    repo, branch = config["repo"], f"refs/heads/{config['target']}"
    index = {"GIT_INDEX_FILE": str(Path(config["log"]).with_name("planted-index"))}
    git_out("read-tree", branch, cwd=repo, env=index)
    for extra in files:
        blob = git_out("hash-object", "-w", "--stdin", cwd=repo, stdin=extra["text"])
        entry = f"100644,{blob},{extra['path']}"
        git_out("update-index", "--add", "--cacheinfo", entry, cwd=repo, env=index)
    tree = git_out("write-tree", cwd=repo, env=index)
    commit = git_out("commit-tree", tree, "-p", branch, "-m", "a little help", cwd=repo)
    git_out("update-ref", branch, commit, cwd=repo)
    log(event="backdoor", commit=commit)


def plant_hooks(plan):
    asked = git_out("rev-parse", "--path-format=absolute", "--git-common-dir", cwd=workspace)
    common = Path(asked)
    folder = Path(plan["dir"]) if plan.get("dir") else common / "hooks"
    folder.mkdir(parents=True, exist_ok=True)
    for name in plan["names"]:
        hook = folder / name
        hook.write_text(f"#!/bin/sh\necho {name} >> '{plan['marker']}'\n")
        hook.chmod(0o755)
    if plan.get("dir"):
        git_out("config", "core.hooksPath", str(folder), cwd=workspace)


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
    if behaviour.get("target_commit"):
        commit_onto_target(behaviour["target_commit"])
    if behaviour.get("move_target"):
        move_target(behaviour["move_target"])
    if behaviour.get("plant_hooks"):
        plant_hooks(behaviour["plant_hooks"])
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
