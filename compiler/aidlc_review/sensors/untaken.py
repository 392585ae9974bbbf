"""What no tool of a check took: the claimed source files a language check left unjudged.

A check judges languages when every tool its descriptor lists names the files it takes
(``ToolSpec.files``: the linter, the type check, the formatter, the security lens, the test
runners). A claimed source file (by its extension, ``LANGUAGES``) that no tool of such a check
can take in this workspace (the tool is not configured, not installed, or takes no file of
that language) was not judged by it, whatever the check's status says. The review says so at
the gate and in the report ("no linter or type-check ran for 4 Go files"), so a READY is never
read as covering what nothing looked at.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from aidlc_review.sensors.context import SensorContext, is_detected
from aidlc_review.sensors.described import workspace_tool
from aidlc_review.sensors.globs import filter_matching

# extension -> language: what counts as source (a README, a lock file or an image does not)
LANGUAGES = {
    **dict.fromkeys(("py", "pyi"), "Python"),
    **dict.fromkeys(("ts", "tsx", "mts", "cts"), "TypeScript"),
    **dict.fromkeys(("js", "jsx", "mjs", "cjs"), "JavaScript"),
    "go": "Go",
    "rs": "Rust",
    **dict.fromkeys(("java",), "Java"),
    **dict.fromkeys(("kt", "kts"), "Kotlin"),
    "rb": "Ruby",
    "php": "PHP",
    **dict.fromkeys(("c", "h"), "C"),
    **dict.fromkeys(("cc", "cpp", "cxx", "hpp", "hh"), "C++"),
    "cs": "C#",
    "swift": "Swift",
    "scala": "Scala",
    **dict.fromkeys(("sh", "bash"), "shell"),
    "lua": "Lua",
    "dart": "Dart",
    **dict.fromkeys(("ex", "exs"), "Elixir"),
}


def language_of(path: str) -> str | None:
    return LANGUAGES.get(PurePosixPath(path).suffix.lstrip(".").lower())


def judges_languages(ctx: SensorContext) -> bool:
    tools = ctx.runner.tools
    return bool(tools) and all(spec.files for spec in tools)


def untaken(ctx: SensorContext) -> list[str]:
    """The claimed source files no tool of this check can take in this workspace."""
    sources = [path for path in ctx.claimed if language_of(path)]
    if not sources or not judges_languages(ctx):
        return []
    taken: set[str] = set()
    for spec in ctx.runner.tools:
        if is_detected(spec, ctx.workspace) and workspace_tool(ctx, spec.tool) is not None:
            taken.update(filter_matching(spec.files or "**", sources))
    for declared in ctx.settings.get("tools", []):
        if declared["check"] == ctx.name:  # one not installed is an error of its own
            taken.update(filter_matching(declared["files"], sources))
    return [path for path in sources if path not in taken]


def unjudged_groups(
    untaken_by_check: dict[str, list[str]],
) -> list[tuple[tuple[str, ...], str, list[str]]]:
    """The files no tool of some language checks took, grouped by (those checks, language),
    sorted: what the review says at the gate and in the report."""
    groups: dict[tuple[tuple[str, ...], str], list[str]] = {}
    files = sorted({path for paths in untaken_by_check.values() for path in paths})
    for path in files:
        missing = tuple(sorted(c for c, paths in untaken_by_check.items() if path in paths))
        groups.setdefault((missing, language_of(path) or "other"), []).append(path)
    return [(checks, language, paths) for (checks, language), paths in sorted(groups.items())]
