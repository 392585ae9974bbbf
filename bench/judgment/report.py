"""The benchmark's figures as Markdown tables (what bench/judgment/README.md quotes)."""

from __future__ import annotations

from collections import Counter

RUNS = ("no_base", "with_base")
UNTESTED = "coverage/changed-below-threshold"


def render(results: dict) -> str:
    return "\n".join(
        [
            f"commit {results.get('commit', '?')}",
            "",
            *_pristine(results["packages"]),
            "",
            *_seeded(results["seeds"]),
            "",
            *_summary(results["seeds"]),
        ]
    )


def _pristine(packages: dict) -> list[str]:
    lines = [
        "| package | review, no base | blocking | review, --base HEAD | blocking | direct hits |",
        "|---|---|---|---|---|---|",
    ]
    for name, p in packages.items():
        tools = Counter(h["tool"] for h in p["direct"]["hits"])
        direct = ", ".join(f"{t} {n}" for t, n in sorted(tools.items())) or "none"
        runs = [f"{p[r]['verdict']} | {len(p[r].get('blocking', []))}" for r in RUNS]
        lines.append(f"| {name} {p['version']} | {' | '.join(runs)} | {direct} |")
    for name, p in packages.items():
        for run in RUNS:
            for f in p[run].get("blocking", []):
                lines.append(f"- {name} ({run}): {f['severity']} {f['where']} {f['finding'][:110]}")
    return lines


def _seeded(seeds: list[dict]) -> list[str]:
    head = "| seed | defect | review findings | checks | at line | blocks | direct hits |"
    lines = [head + " direct at line |", "|---|---|---|---|---|---|---|---|"]
    for s in seeds:
        checks = sorted({c for f in s["findings"] for c in f["checks"]})
        lines.append(
            f"| {s['id']} | {s['defect']} | {len(s['findings'])} | {', '.join(checks) or '-'}"
            f" | {'yes' if s['at_line'] else 'no'} | {'yes' if s['blocks'] else 'no'}"
            f" | {len(s['direct']['hits'])} | {', '.join(s['direct']['at_line']) or '-'} |"
        )
    return lines


def _summary(seeds: list[dict]) -> list[str]:
    if not seeds:
        return []
    count = len(seeds)
    found = sum(len(s["findings"]) for s in seeds)
    untested = sum(f["rule"] == UNTESTED for s in seeds for f in s["findings"])
    at_line = sum(s["at_line"] for s in seeds)
    blocks = sum(s["blocks"] for s in seeds)
    hits = sum(len(s["direct"]["hits"]) for s in seeds)
    direct_line = sum(bool(s["direct"]["at_line"]) for s in seeds)
    missed = [s["id"] for s in seeds if not s["at_line"] and not s["direct"]["at_line"]]
    only_review = [s["id"] for s in seeds if s["at_line"] and not s["direct"]["at_line"]]
    return [
        f"- seeds: {count}",
        f"- review: {found} findings ({found / count:.1f} per defect), at the line"
        f" {at_line}/{count} ({100 * at_line / count:.0f}%), blocking {blocks}/{count};"
        f" {untested} of the findings are changed-line coverage (new code no test runs)",
        f"- direct tools: {hits} hits ({hits / count:.1f} per defect), at the line"
        f" {direct_line}/{count} ({100 * direct_line / count:.0f}%)",
        f"- at the line only in the review: {', '.join(only_review) or 'none'}",
        f"- at the line nowhere: {', '.join(missed) or 'none'}",
    ]
