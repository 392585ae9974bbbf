"""``aidlc-review sensors``: list the sensor manifests, run them on claimed source, or fire one.

``run`` exits 0 when no check has a blocking finding, 1 when one has, 2 on bad
input. ``fire`` is upstream's dispatcher contract: one JSON object on stdout,
exit 0, or 127 when the sensor's tool is unavailable.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from aidlc_review.cli.options import add_harness, add_json

EXIT_UNAVAILABLE = 127


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("sensors", help="list, run or fire the deterministic sensors")
    verbs = parser.add_subparsers(
        dest="sensors_command", metavar="VERB", parser_class=_keeping_words(type(parser))
    )
    verbs.required = True

    listing = verbs.add_parser("list", help="list the harness's sensor manifests")
    _add_harness(listing)
    add_json(listing)
    listing.set_defaults(handler=run_list)

    running = verbs.add_parser("run", help="run sensors on the files a source manifest claims")
    _add_harness(running)
    running.add_argument("--workspace", type=Path, default=Path("."), metavar="DIR")
    running.add_argument(
        "--manifest",
        type=Path,
        required=True,
        metavar="FILE",
        help="the unit's source-manifest.json",
    )
    running.add_argument(
        "--sensor",
        action="append",
        default=None,
        metavar="ID",
        help="run only this sensor (repeatable)",
    )
    _add_run_settings(running)
    add_json(running)
    running.set_defaults(handler=run_run)

    fire = verbs.add_parser(
        "fire",
        help='upstream contract: run one sensor, print {"pass": ...}',
        usage="aidlc-review sensors fire ID [--workspace DIR] [--manifest FILE] [OPTIONS]"
        " [--] [FILE ...]",
    )
    fire.add_argument("sensor", metavar="ID")
    fire.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    fire.set_defaults(handler=run_fire)


def _keeping_words(base: type[argparse.ArgumentParser]) -> type[argparse.ArgumentParser]:
    """``base`` that also records the words it was given, as typed: argparse drops a ``--``
    in some positions, and ``fire`` must find it to treat every later word as a file."""

    class KeepingWords(base):  # type: ignore[valid-type,misc]
        def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
            parsed, extra = super().parse_known_args(args, namespace)
            parsed.verb_words = list(args or [])
            return parsed, extra

    return KeepingWords


def _fire_parser() -> argparse.ArgumentParser:
    """Parsed in the handler: a sub-parser cannot mix an ID, options and ``-- FILE...``."""
    parser = argparse.ArgumentParser(prog="aidlc-review sensors fire ID")
    _add_harness(parser)
    parser.add_argument("--workspace", type=Path, default=Path("."), metavar="DIR")
    parser.add_argument("--manifest", type=Path, default=None, metavar="FILE")
    parser.add_argument("files", nargs="*", metavar="FILE", help="claimed files (after --)")
    _add_run_settings(parser)
    return parser


def _add_harness(parser: argparse.ArgumentParser) -> None:
    add_harness(
        parser,
        strict=False,
        help="harness whose sensors/ to use (default: this project's own root)",
    )


def _add_run_settings(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--coverage-command",
        default=None,
        metavar="CMD",
        help="the unit's targeted test command: the project's test runner on the unit's tests",
    )
    parser.add_argument(
        "--coverage-data",
        type=Path,
        default=None,
        metavar="FILE",
        help="read this existing coverage data file instead of running tests",
    )
    parser.add_argument(
        "--threshold",
        type=float,
        default=None,
        metavar="PCT",
        help="coverage threshold in percent (default: the manifest's)",
    )
    parser.add_argument(
        "--base",
        default=None,
        metavar="REV",
        help="base revision: also measure coverage of the lines changed since it",
    )
    parser.add_argument(
        "--findings",
        type=Path,
        default=None,
        metavar="FILE",
        help="code-review-findings.json for the findings-schema sensor",
    )
    parser.add_argument(
        "--no-cache", action="store_true", help="do not read or write the result cache"
    )


def _settings(args: argparse.Namespace, workspace: Path) -> dict[str, Any]:
    from aidlc_review.review.inputs.workspace_settings import load_settings

    overrides = load_settings(workspace).severity  # the rule table as the review tunes it
    chosen = {
        "severity": overrides.for_sensors() if overrides is not None else None,
        "coverage_command": args.coverage_command,
        "coverage_data_file": str(args.coverage_data) if args.coverage_data else None,
        "coverage_threshold": args.threshold,
        "base_revision": args.base,
        "findings_path": str(args.findings) if args.findings else None,
    }
    settings = {key: value for key, value in chosen.items() if value is not None}
    if args.no_cache:
        settings["cache"] = False
    return settings


def _stderr(message: str) -> None:
    print(message, file=sys.stderr)


def run_list(args: argparse.Namespace) -> int:
    from aidlc_review.sensors.manifests import load_sensor_manifests

    manifests = load_sensor_manifests(args.harness)
    rows = [_describe(m) for m in manifests]
    if args.json:
        print(json.dumps({"sensors": rows}, indent=2))
        return 0
    for row in rows:
        tools = ", ".join(row["tools"]) or "-"
        flag = " required" if row["required"] else ""
        print(
            f"{row['id']:<16} {row['default_severity']:<9} {row['runner'] or '-':<16} "
            f"tools: {tools}{flag}  matches: {row['matches']}"
        )
    return 0


def _describe(manifest: Any) -> dict[str, Any]:
    runner = manifest.runner
    return {
        "id": manifest.id,
        "default_severity": manifest.default_severity,
        "category": manifest.category,
        "matches": manifest.matches,
        "timeout_seconds": manifest.timeout_seconds,
        "command": manifest.command,
        "runner": runner.name if runner else None,
        "required": bool(runner and runner.required),
        "tools": [t.tool for t in runner.tools] if runner else [],
    }


def run_run(args: argparse.Namespace) -> int:
    from aidlc_review.review.inputs.source_manifest import claimed_files, read_source_manifest
    from aidlc_review.sensors import run_sensors
    from aidlc_review.sensors.manifests import load_sensor_manifests, pick_manifests

    workspace = _workspace(args.workspace)
    manifests = pick_manifests(load_sensor_manifests(args.harness), args.sensor)
    files = claimed_files(read_source_manifest(args.manifest, workspace), workspace)
    results = run_sensors(
        workspace, files, manifests, settings=_settings(args, workspace), progress=_stderr
    )
    if args.json:
        print(json.dumps({"checks": [r.to_json() for r in results]}, indent=2))
    else:
        for result in results:
            _print_result(result)
    return 1 if any(r.blocking for r in results) else 0


def _print_result(result: Any) -> None:
    why = f" ({result.reason})" if result.reason else ""
    print(f"{result.name}: {result.status}{why}")
    for f in result.findings:
        where = f"{f.path}:{f.line}" if f.line else (f.path or "-")
        print(f"  {f.severity:<8} {where}: {f.message}" + (f" [{f.rule}]" if f.rule else ""))


def run_fire(args: argparse.Namespace) -> int:
    from aidlc_review.errors import InvalidInput
    from aidlc_review.review.inputs.source_manifest import (
        claimed_files,
        manifest_for_paths,
        read_source_manifest,
    )
    from aidlc_review.sensors import run_sensors
    from aidlc_review.sensors.manifests import load_sensor_manifests, pick_manifests

    sensor = args.sensor
    words = list(args.verb_words)  # what followed "fire", as typed: the ID comes first
    cut = words.index("--") if "--" in words else len(words)
    head, tail = words[:cut], words[cut + 1 :]
    if head[:1] == [sensor]:
        head = head[1:]
    elif tail[:1] == [sensor]:
        tail = tail[1:]  # "fire -- ID FILE...": argparse read the ID from after the "--"
    try:
        args = _fire_parser().parse_intermixed_args(head)
    except SystemExit as exc:
        return int(exc.code or 0)
    args.files = [*args.files, *tail]  # after a literal "--": file names, always
    workspace = _workspace(args.workspace)
    manifests = pick_manifests(load_sensor_manifests(args.harness), [sensor])
    if args.manifest is not None:
        source = read_source_manifest(args.manifest, workspace)
    elif args.files:
        source = manifest_for_paths(args.files, workspace)
    else:
        raise InvalidInput(
            "sensors fire: name the claimed files (after --) or give --manifest FILE"
        )
    files = claimed_files(source, workspace)
    result = run_sensors(
        workspace, files, manifests, settings=_settings(args, workspace), progress=_stderr
    )[0]
    body = {
        "pass": result.status in ("passed", "skipped") and not result.findings,
        "findings_count": len(result.findings),
        **result.to_json(),
    }
    print(json.dumps(body, indent=2))
    return EXIT_UNAVAILABLE if result.details.get("unavailable") else 0


def _workspace(path: Path) -> Path:
    from aidlc_review.errors import InvalidInput

    if not path.is_dir():
        raise InvalidInput(f"{path}: workspace directory not found")
    return path.resolve()
