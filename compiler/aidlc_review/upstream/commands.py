"""What a Bash command would ask upstream's engine to do, read from its text.

Pure: text in, intents out. The command is split the way a shell splits it (quotes,
escapes, ``;`` ``&&`` ``||`` ``|`` ``&`` newlines and parentheses end a command; no
comments, so a ``#`` never hides what follows it), and every simple command that
runs one of upstream's tools is read with that tool's own argument rules
(``--project-dir`` taken out first, the subcommand next, then ``--flag value`` pairs,
the last one winning). A quoted string that itself holds a command (``sh -c '...'``,
``eval``, ``$(...)``) is read as one too.

A value the shell would still expand (``$X``, backticks, globs, braces) is *unknown*:
the gate treats an unknown stage as possibly code-review, never as some other stage, and
a tool whose arguments come from elsewhere (``"$@"``, ``xargs``, ``find -exec``) as asked
to do the worst it can. A backslash-newline is joined as the shell joins it.

What the reader cannot follow to its end is named by ``unreadable``: code the command
hands to another interpreter (``python3 -c``, ``node -e``, ``bun -e``) or builds at run time
(``eval``, ``sh -c`` or ``bun`` on an expansion) where the text names upstream's tools, or
could; the gate refuses those (DESIGN.md §9: a gate that reads text is not a boundary).
Script files a command runs are listed by ``scripts_run`` for the gate to read.
Only two things matter here: writing a reviewer receipt (``aidlc-log.ts review``, or
an ``aidlc-audit.ts append`` of a review event) and committing a stage forward
(``aidlc-orchestrate.ts report`` with a forward result).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import PurePosixPath

from aidlc_review.upstream import names

# One flag value the shell has not finished with: the gate cannot know what it becomes.
UNKNOWN = "\x00unknown"

LOG, ORCHESTRATE, AUDIT = "log", "orchestrate", "audit"
TOOLS = {names.LOG_TOOL: LOG, names.ORCHESTRATE_TOOL: ORCHESTRATE, names.AUDIT_TOOL: AUDIT}
DISPATCHERS = names.DISPATCHER_TOOLS  # upstream's dispatcher: `aidlc.ts <noun> <verb> ...`
DISPATCHED = {"report": ORCHESTRATE, "next": ORCHESTRATE, "park": ORCHESTRATE}
# report's outcomes that commit a stage (upstream's forward results, and skipped)
FORWARD_RESULTS = frozenset({"approved", "completed", "complete", "done", "skipped"})
RESUME_RESULTS = frozenset({"resume", "resumed"})
REVIEW_EVENTS = ("REVIEW_COMPLETED", "REVIEW_REQUESTED")
SEPARATORS = frozenset(";&|()\n")
EXPANDING = frozenset("$`*?[]{}~")
MAX_DEPTH = 4
# programs that run another program with arguments that do not appear in the text
ARG_FEEDERS = frozenset({"xargs", "parallel", "watch"})
FIND_RUNS = frozenset({"-exec", "-execdir", "-ok", "-okdir"})  # find running a program
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "fish", "source", "."})
# interpreters of languages this reader does not read: their code is opaque to it
OPAQUE = frozenset({"python", "python3", "node", "nodejs", "perl", "ruby", "deno", "php", "tsx"})
RUNNERS = frozenset({"bun", "npx", "bunx", "node", "tsx", "deno"})  # what runs a .ts tool
WRAPPERS = frozenset({"env", "exec", "command", "nice", "nohup", "time", "timeout", "sudo"})
ENGINE_WORD = "aidlc"  # in every name of the engine: its tools, records and dispatcher
# names of upstream's engine in a command's text: its tools, their folder, its dispatcher
ENGINE_NAME = re.compile(r"aidlc(?:-[a-z-]+)?\.ts|\.claude/tools|(?<![\w/.-])aidlc(?![\w/.-])")


@dataclass(frozen=True)
class ReceiptWrite:
    """A reviewer receipt being written for ``stage`` (UNKNOWN: cannot tell which)."""

    stage: str
    shown: str


@dataclass(frozen=True)
class StageCommit:
    """``report`` committing a stage forward: ``stage`` None means the current stage."""

    stage: str | None
    project_dir: str | None
    shown: str


EngineIntent = ReceiptWrite | StageCommit


def engine_intents(command: str) -> list[EngineIntent]:
    """Every receipt write and forward commit ``command`` would run, in order."""
    return _read(command, 0)


def _read(command: str, depth: int) -> list[EngineIntent]:
    found: list[EngineIntent] = []
    words = _words(command)
    for simple in _simple_commands(words):
        found.extend(_intents_of(simple))
    if depth < MAX_DEPTH:
        for word in words:
            if "aidlc" in word and any(c.isspace() or c in SEPARATORS or c == "`" for c in word):
                found.extend(_read(word.replace("`", "\n").replace("$(", "\n("), depth + 1))
    return found


def _words(command: str) -> list[str]:
    command = command.replace("\\\n", "")  # a line continuation: the shell joins the word
    lexer = shlex.shlex(command, posix=True, punctuation_chars="".join(sorted(SEPARATORS)) + "<>`")
    lexer.whitespace = " \t\r"
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        return list(lexer)
    except ValueError:  # an unclosed quote: the shell would refuse it; read it word by word
        return command.replace("'", " ").replace('"', " ").split()


def _simple_commands(words: list[str]) -> list[list[str]]:
    commands: list[list[str]] = [[]]
    for word in words:
        if word and set(word) <= SEPARATORS | {"`"}:
            commands.append([])
        else:
            commands[-1].append(word)
    return [c for c in commands if c]


def _intents_of(words: list[str]) -> list[EngineIntent]:
    for at, word in enumerate(words):
        name = PurePosixPath(word).name if word else ""
        tool = TOOLS.get(name)
        args = words[at + 1 :]
        if tool is None and name in DISPATCHERS and args:
            noun = args[0]
            tool = DISPATCHED.get(noun) or (noun if noun in (LOG, ORCHESTRATE, AUDIT) else None)
            args = args if noun in DISPATCHED else args[1:]
        if tool is None and _is_unknown(word) and "aidlc" in word:
            tool = ORCHESTRATE  # `aidlc-$X.ts`: could be any tool; read it as the one that commits
        if tool is not None:
            before = words[:at]
            finds = any(_program(w) == "find" for w in before) and bool(FIND_RUNS & set(words))
            fed = finds or any(_program(w) in ARG_FEEDERS for w in before)
            rest = _take_project_dir(args)[1]
            if fed or (rest and _is_unknown(rest[0])):
                return _worst(tool, " ".join(words))  # what it is asked is not in the text
            return _read_tool(tool, args, " ".join(words))
    return []


def _worst(tool: str, shown: str) -> list[EngineIntent]:
    """What a tool whose arguments the text does not hold could be asked to do."""
    if tool == ORCHESTRATE:
        return [StageCommit(UNKNOWN, None, shown)]
    return [ReceiptWrite(UNKNOWN, shown)]


def _program(word: str) -> str:
    return PurePosixPath(word).name if word else ""


def unreadable(command: str) -> str | None:
    """Why this reader cannot follow ``command`` to its end where it may reach upstream's
    engine (None: it can). Each simple command is looked at past its wrappers (``env``,
    ``exec``, ``timeout``...)."""
    words = _words(command)
    names = bool(ENGINE_NAME.search(command.replace("\\\n", "")))
    for simple in _simple_commands(words):
        args = _unwrapped(simple)
        if not args:
            continue
        program, rest = _program(args[0]), args[1:]
        code = " ".join(rest)
        if program in OPAQUE or (program == "bun" and rest[:1] in (["-e"], ["--eval"])):
            if ENGINE_NAME.search(code) or any(map(_is_unknown, rest)):
                return f"`{' '.join(simple)}` runs code in another language that names them"
        if program in RUNNERS and rest and _is_unknown(rest[0]):
            return f"`{' '.join(simple)}` runs a script whose name is built at run time"
        built = any(map(_is_unknown, rest))
        if built and (program == "eval" or (program in SHELLS and "-c" in rest)):
            return f"`{' '.join(simple)}` runs shell code built at run time"
        if built and program in SHELLS and names:
            return f"`{' '.join(simple)}` runs a script whose name is built at run time"
        if program in SHELLS and not rest and "|" in command and names:
            return f"`{' '.join(simple)}` runs shell code from its input"
    return None


def scripts_run(command: str) -> list[tuple[str, str]]:
    """``(kind, path)`` of every script file the command runs: ``shell`` (``sh x.sh``,
    ``source x``, ``./x.sh``) or ``opaque`` (``python3 x.py``...), for the gate to read."""
    found: list[tuple[str, str]] = []
    for simple in _simple_commands(_words(command)):
        args = _unwrapped(simple)
        if not args:
            continue
        program = _program(args[0])
        script = next((a for a in args[1:] if not a.startswith("-")), None)
        if program in SHELLS and script and not _is_unknown(script):
            found.append(("shell", script))
        elif program in OPAQUE and script and not _is_unknown(script) and "-c" not in args:
            found.append(("opaque", script))
        elif args[0].startswith(("./", "/")) and program not in RUNNERS and "." in program:
            found.append(("shell", args[0]))
    return found


def _unwrapped(words: list[str]) -> list[str]:
    """The command past variable assignments and wrappers (``env X=1 timeout 5 cmd``)."""
    at = 0
    while at < len(words):
        word = words[at]
        assignment = "=" in word and word.split("=", 1)[0].isidentifier()
        after_wrapper = at > 0 and _program(words[at - 1]) in WRAPPERS
        wrapper_option = after_wrapper and (word.startswith("-") or word.isdigit())
        if not (assignment or wrapper_option or _program(word) in WRAPPERS):
            break
        at += 1
    return words[at:]


def _read_tool(tool: str, args: list[str], shown: str) -> list[EngineIntent]:
    project_dir, rest = _take_project_dir(args)
    if not rest:
        return []
    sub, flags = rest[0], rest[1:]
    if tool == LOG:
        return _log(sub, flags, shown)
    if tool == AUDIT:
        return _audit(sub, flags, shown)
    return _report(sub, flags, project_dir, shown)


def _log(sub: str, flags: list[str], shown: str) -> list[EngineIntent]:
    if sub != "review" and not _is_unknown(sub):
        return []
    stage = _flag_values(flags, booleans={"--single"}).get("--stage")
    return [] if stage is None else [ReceiptWrite(stage, shown)]


def _audit(sub: str, flags: list[str], shown: str) -> list[EngineIntent]:
    if not (sub.startswith("append") or _is_unknown(sub)):
        return []
    text = " ".join(flags)
    if not any(event in text for event in REVIEW_EVENTS) and not any(map(_is_unknown, flags)):
        return []
    if "code-review" in text:
        return [ReceiptWrite("code-review", shown)]
    return [ReceiptWrite(UNKNOWN, shown)] if any(map(_is_unknown, flags)) else []


def _report(sub: str, flags: list[str], project_dir: str | None, shown: str) -> list[EngineIntent]:
    if sub != "report" and not _is_unknown(sub):
        return []
    values = _flag_values(flags, booleans={"--single"}, report=True)
    if "--skeleton-stance" in values:
        return []  # records a stance; commits nothing
    result = values.get("--result")
    if result is None or (result not in FORWARD_RESULTS and result != UNKNOWN):
        return []  # no verdict (upstream refuses), or a gate, resume or rejection report
    stage = values.get("--stage")
    stage = None if stage is not None and stage != UNKNOWN and not stage.strip() else stage
    return [StageCommit(stage.strip() if stage else None, project_dir, shown)]


def _take_project_dir(args: list[str]) -> tuple[str | None, list[str]]:
    """Upstream's tools take ``--project-dir DIR`` out before anything else."""
    project_dir: str | None = None
    rest: list[str] = []
    at = 0
    while at < len(args):
        if args[at] == "--project-dir" and at + 1 < len(args):
            project_dir = _value(args[at + 1])
            at += 2
            continue
        rest.append(args[at])
        at += 1
    return project_dir, rest


def _flag_values(flags: list[str], booleans: set[str], report: bool = False) -> dict[str, str]:
    """``--flag value`` pairs as upstream's parsers read them (the last one wins).

    ``report`` reads only the flags it knows and skips anything else one word at a
    time; the other tools take every ``--x`` as a flag with a value."""
    known = {"--result", "--user-input", "--reason", "--skeleton-stance", "--stage"}
    values: dict[str, str] = {}
    at = 0
    while at < len(flags):
        word = flags[at]
        if word in booleans:
            values[word] = "true"
        elif (word in known or (not report and word.startswith("--"))) and at + 1 < len(flags):
            values[word] = _value(flags[at + 1])
            at += 1
        elif _is_unknown(word):  # `$FLAGS`: could expand into any flag, this one included
            values["--stage"] = UNKNOWN
            if report:
                values["--result"] = UNKNOWN
        at += 1
    return values


def _value(word: str) -> str:
    return UNKNOWN if _is_unknown(word) else word


def _is_unknown(word: str) -> bool:
    return any(c in EXPANDING for c in word)


def may_touch_engine(command: str) -> bool:
    """Whether ``command`` may write a receipt or commit a stage. Fails closed: a command this
    reader cannot read at all counts when its text names the engine anywhere."""
    try:
        return bool(engine_intents(command))
    except Exception:
        return ENGINE_WORD in command
