"""Upstream's ``matches`` globs: ``*``, ``?``, ``**`` (any depth) and ``{a,b}`` alternatives."""

from __future__ import annotations

import re
from functools import lru_cache


@lru_cache(maxsize=64)
def compile_glob(pattern: str) -> re.Pattern[str]:
    return re.compile(_translate(pattern) + r"\Z")


def _translate(pattern: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if pattern.startswith("**/", i):
            out.append(r"(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(r".*")
            i += 2
            continue
        if char == "{":
            end = pattern.find("}", i)
            if end > i:
                options = pattern[i + 1 : end].split(",")
                out.append("(?:" + "|".join(_translate(o) for o in options) + ")")
                i = end + 1
                continue
        out.append({"*": r"[^/]*", "?": r"[^/]"}.get(char, re.escape(char)))
        i += 1
    return "".join(out)


def filter_matching(pattern: str, paths: list[str]) -> list[str]:
    """The paths (workspace-relative POSIX) the glob matches, in their given order."""
    regex = compile_glob(pattern)
    return [p for p in paths if regex.match(p)]


def expand_braces(glob: str) -> list[str]:
    """``{a,b}.toml`` -> ``a.toml``, ``b.toml`` (each brace group in turn, as the manifests
    write them)."""
    found = re.fullmatch(r"(.*?)\{([^{}]*)\}(.*)", glob)
    if not found:
        return [glob]
    head, options, tail = found.groups()
    return [n for option in options.split(",") for n in expand_braces(head + option + tail)]
