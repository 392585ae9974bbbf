"""Lower the plugin's source definitions into the vocabulary upstream's engine accepts.

Pure text in, text out. The source form (this project's harness) says
``lead_agent: aidlc-code-reviewer-agent``, ``repair_agent``, ``reviews``,
``max_passes``; upstream knows one review loop: a stage's ``reviewer`` reviews
and its ``lead_agent`` repairs, up to ``reviewer_max_iterations``. So the
installed code-review is led by the repairer and reviewed by the reviewer,
``mode: inline`` (per unit, outside the build swarm), with one ``produces``
entry (upstream resolves every produces name to ``<name>.md``). What upstream
has no field for goes to the ledger. Sensor manifests become advisory, with a
``.ts`` tool each; what only this runtime enforces moves under ``enforce:``,
a nested block upstream's manifest reader does not see.
"""

from __future__ import annotations

import json

from aidlc_review.harness.yamledit import FrontmatterText, check_edit, scalar_list_block
from aidlc_review.install.trial import consumes_block

SENSOR_PREFIX = "review-"
REVIEW_ARTIFACT = "code-review"
UPSTREAM_ONLY_KEYS = ("repair_agent", "reviews", "max_passes", "plan_approval")


def installed_sensor_id(source_id: str) -> str:
    """Our sensors' ids in an upstream harness: never upstream's own ``linter``/``type-check``."""
    return f"{SENSOR_PREFIX}{source_id}"


def lower_review_stage(
    source: FrontmatterText,
    scopes: list[str],
    known_artifacts: set[str],
    review_artifact: bool = False,
    write_budget: bool = True,
) -> tuple[str, list[str]]:
    """The installed code-review stage text, and the consumes it had to drop.
    ``review_artifact``: the engine's schema has the key (upstream 2.7 on), where a stage
    with a ``reviewer`` must name the Markdown artifact it reviews. ``write_budget``: the
    gated budget goes into ``reviewer_max_iterations`` (not where the engine's logger owns
    budgets and its schema dropped the key: ``install.newer``)."""
    data = source.plain()
    consumes = [c for c in data["consumes"] if c["artifact"] in known_artifacts]
    dropped = [c["artifact"] for c in data["consumes"] if c["artifact"] not in known_artifacts]
    sensors = [installed_sensor_id(s) for s in data.get("sensors", [])]
    budget = int(data["max_passes"]["gated"])
    text = source
    for key in UPSTREAM_ONLY_KEYS:
        text.remove_key(key)
    text.replace_key("lead_agent", [f"lead_agent: {data['repair_agent']}"])
    text.replace_key("mode", ["mode: inline"])
    reviewed = [f"review_artifact: {REVIEW_ARTIFACT}"] if review_artifact else []
    budgeted = [f"reviewer_max_iterations: {budget}"] if write_budget else []
    text.insert_after(("mode",), [f"reviewer: {data['lead_agent']}", *budgeted, *reviewed])
    text.replace_key("produces", scalar_list_block("produces", [REVIEW_ARTIFACT], "  "))
    text.replace_key("consumes", consumes_block(consumes))
    text.replace_key("sensors", scalar_list_block("sensors", sensors, "  "))
    text.replace_key("scopes", scalar_list_block("scopes", scopes, "  "))
    expected = {k: v for k, v in data.items() if k not in UPSTREAM_ONLY_KEYS}
    expected.update(
        lead_agent=data["repair_agent"],
        mode="inline",
        reviewer=data["lead_agent"],
        produces=[REVIEW_ARTIFACT],
        consumes=consumes,
        sensors=sensors,
        scopes=scopes,
    )
    if write_budget:
        expected["reviewer_max_iterations"] = budget
    if review_artifact:
        expected["review_artifact"] = REVIEW_ARTIFACT
    check_edit(text, expected)
    return text.text, dropped


def lower_sensor(source: FrontmatterText, harness_dir: str) -> str:
    """An upstream-valid manifest: advisory, a ``.ts`` command, our enforcement nested away."""
    data = source.plain()
    new_id = installed_sensor_id(data["id"])
    enforce = {"default_severity": data["default_severity"]}
    if data.get("fire_on"):
        enforce["fire_on"] = data["fire_on"]
    source.replace_key("id", [f"id: {new_id}"])
    source.replace_key("command", [f"command: bun {harness_dir}/tools/{shim_name(new_id)}"])
    source.replace_key("default_severity", ["default_severity: advisory"])
    source.remove_key("fire_on")
    source.insert_after(
        ("default_severity",), ["enforce:", *[f"  {k}: {v}" for k, v in enforce.items()]]
    )
    expected = {k: v for k, v in data.items() if k != "fire_on"}
    expected.update(
        id=new_id,
        command=f"bun {harness_dir}/tools/{shim_name(new_id)}",
        default_severity="advisory",
        enforce=enforce,
    )
    check_edit(source, expected)
    return source.text


def shim_name(sensor_id: str) -> str:
    return f"aidlc-sensor-{sensor_id}.ts"


def sensor_shim(sensor_id: str, harness_dir: str) -> str:
    """The ``.ts`` tool upstream's dispatcher runs for one of our sensors."""
    return _SHIM.replace("@SENSOR_ID@", json.dumps(sensor_id)).replace(
        "@HARNESS_DIR@", json.dumps(harness_dir)
    )


_SHIM = """\
// Sensor tool for the aidlc-review plugin (added by `aidlc-review install`,
// removed by `aidlc-review uninstall`; do not edit).
//
// Upstream's dispatcher runs `bun <this file> --stage <slug> --output-path <file>`
// in the project directory. This forwards the file, workspace-relative and after
// `--`, to `aidlc-review sensors fire`, which prints {"pass": ..., "findings_count": ...}.
// Exit 127 tells the dispatcher the tool is unavailable (aidlc-review not on PATH).
import { spawnSync } from "node:child_process";
import { isAbsolute, relative, resolve } from "node:path";

const SENSOR_ID = @SENSOR_ID@;
const HARNESS_DIR = @HARNESS_DIR@;

function flag(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

const target = flag("--output-path") ?? flag("--file-path");
if (!target) {
  console.error(`${SENSOR_ID}: expected --output-path <file>`);
  process.exit(2);
}
const project = process.cwd();
const file = relative(project, resolve(project, target));
if (file === "" || file.startsWith("..") || isAbsolute(file)) {
  console.log(JSON.stringify({ pass: true, findings_count: 0, note: "outside the project" }));
  process.exit(0);
}
const argv = ["sensors", "fire", SENSOR_ID, "--harness", HARNESS_DIR, "--workspace", "."];
argv.push("--", file);
const run = spawnSync(process.env.AIDLC_REVIEW_BIN || "aidlc-review", argv, {
  cwd: project,
  encoding: "utf-8",
});
if (run.error) {
  const code = (run.error as NodeJS.ErrnoException).code;
  console.error(`${SENSOR_ID}: aidlc-review could not run (${code ?? run.error.message})`);
  process.exit(code === "ENOENT" || code === "EACCES" ? 127 : 1);
}
process.stdout.write(run.stdout ?? "");
process.stderr.write(run.stderr ?? "");
process.exit(run.status ?? 1);
"""
