"""Secret values never leave a sensor or an agent: every message and agent text passes here.

Tools quote source text in their messages (ruff's "Undefined name `AKIA...`", mypy's
``Literal['...']`` types), and agents quote the offending line (as a real model does),
so a value the secret-scan reports only by hash could otherwise reach stdout, the
findings document, the report, a brief or the result cache. detect-secrets' own
plugins, with their default settings, find the values; each is replaced, with the
whole token around it: by ``<redacted secret>`` in a tool's message, by
``[redacted: <type> <hash8>]`` in an agent's text (``scrub``), which also says which
secrets it hid, so the review can tell a quoted known finding from a new leak.

A secret quoted encoded passes no plugin, so runs long enough to hold one (16 characters)
are also read decoded: base64 (standard or URL-safe, padded or not), hex, and
percent-encoding, and once more inside what that gives (URL-encoded base64). A run that
decodes to mostly printable text (``PRINTABLE_SHARE``) is checked like any text; when it
holds a secret, the whole encoded run is replaced by the marker of each secret inside, and
the hashes are of the decoded token and value, so a known finding quoted encoded still
matches its secret-scan hash.

The plugins can take minutes on the wrong text (the keyword detector on
``secret_password_token_`` repeated: 1 KB 0.15 s, 5 KB 3.5 s, 20 KB over a minute), so
only short texts (``FAST_CHARS`` with their decoded runs, at most about 60 ms measured)
are checked in process. Longer ones are checked in a forked child with a time limit per
text (``REDACT_SECONDS``, ``sensors.deadline``); a text not checked in time, or whose
decoded runs come to more than ``DECODED_TIMES`` its length, is replaced wholesale by
``[redacted: unchecked text <hash8>]``: it is never let through unchecked.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import functools
import hashlib
import re
import urllib.parse
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from aidlc_review.sensors.deadline import EarlySlot, WorkerFailed, no_fork, run_limited

REDACTED = "<redacted secret>"
FAST_CHARS = 512  # checked in process: the slowest known text this long takes about 60 ms
REDACT_SECONDS = 10.0  # per text, in the child: a 1 MiB source file takes 3 to 5 s
DECODED_TIMES = 4  # decoded text checked per text, at most, as a multiple of its length
DECODE_DEPTH = 2  # an encoding inside an encoding is read too; none deeper
PRINTABLE_SHARE = 0.9  # random bytes are about 37% printable: what passes is text
# every plugin's secret is a long run of these: a text without one is not scanned at all
_LONG_RUN = re.compile(r"[A-Za-z0-9+/=_-]{16,}")
_TOKEN = re.compile(r"[A-Za-z0-9+/=_-]+")
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/_-]{16,}={0,2}")
# a run glued to a path or a name ("/v1/<url-safe>", "key_<standard>") is also read in
# pieces; a run of more pieces than that is base64 in that alphabet: it is read whole only
_BASE64_PIECES = (re.compile(r"[A-Za-z0-9_-]{16,}"), re.compile(r"[A-Za-z0-9+/]{16,}"))
_MOST_PIECES = 8
_HEX_RUN = re.compile(r"[0-9A-Fa-f]{16,}")
# what random bytes decode to and text does not hold: controls, and bytes UTF-8 cannot read
_UNSHOWN = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufffd]")
_PERCENT_RUN = re.compile(r"(?:[A-Za-z0-9._~+/=-]|%[0-9A-Fa-f]{2}){16,}")
KEY_VALUE_TYPE = "Secret Keyword"
_KEY_VALUE = re.compile(
    r"(?im)^[ \t]*(?:export[ \t]+)?[\w.-]*"
    r"(?:passw(?:or)?d|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credential)"
    r"[\w.-]*[ \t]*[:=][ \t]*[\"']?(?P<value>[^\s\"'#$<{][^\s\"'#]{7,})"
)

# a secret found: its detect-secrets type, the whole token around it, what the plugin matched
Secret = tuple[str, str, str]
# where a text holds secrets: the span to replace and the secrets it hides
Hit = tuple[int, int, tuple[Secret, ...]]


@dataclass(frozen=True, order=True)
class Quoted:
    """A secret found in a text, never its value: the detect-secrets type, the SHA-1 of the
    whole token (shown), and the SHA-1 of what the plugin matched, which is the hash
    detect-secrets records in findings and baselines (for a GitHub token only its prefix).
    For a secret found encoded, both are of the decoded text."""

    type: str
    hashed: str
    scan_hash: str

    @property
    def marker(self) -> str:
        return f"[redacted: {self.type} {self.hashed[:8]}]"


@dataclass(frozen=True)
class _Decoded:
    """A run of a text read decoded (``start``/``end`` in that text), and its own runs."""

    start: int
    end: int
    text: str
    inner: tuple[_Decoded, ...]


@functools.lru_cache(maxsize=4096)  # make_finding and the finding itself both redact
def redact(text: str) -> str:
    """``text`` with every secret value detect-secrets finds in it replaced by ``REDACTED``."""
    [hits] = _hits_many([text], None)
    if hits is None:
        return unchecked_marker(text)
    return _replace(text, hits, lambda _secrets: REDACTED)


def scrub(text: str, seconds: float | None = None) -> tuple[str, tuple[Quoted, ...]]:
    """Agent text with each secret replaced by ``[redacted: <type> <hash8>]``, and the secrets."""
    [scrubbed] = scrub_many([text], seconds)
    return scrubbed


def scrub_many(
    texts: Sequence[str], seconds: float | None = None
) -> list[tuple[str, tuple[Quoted, ...]]]:
    """``scrub`` for many texts at once: the long ones share one child (one fork). A text
    not checked within ``seconds`` (default ``REDACT_SECONDS``) is replaced wholesale."""
    return [
        _scrub_one(text, hits) if hits is not None else (unchecked_marker(text), ())
        for text, hits in zip(texts, _hits_many(texts, seconds), strict=True)
    ]


def find_secrets(text: str, seconds: float | None = None) -> tuple[Quoted, ...] | None:
    """The secrets ``text`` holds, plain or encoded; None when it could not be checked."""
    [hits] = _hits_many([text], seconds)
    return None if hits is None else _scrub_one(text, hits)[1]


def unchecked_marker(text: str) -> str:
    return f"[redacted: unchecked text {_hash(text)[:8]}]"


def _scrub_one(text: str, hits: list[Hit]) -> tuple[str, tuple[Quoted, ...]]:
    quoted: set[Quoted] = set()

    def marker(secrets: tuple[Secret, ...]) -> str:
        found = [Quoted(kind, _hash(token), _hash(value)) for kind, token, value in secrets]
        quoted.update(found)
        return " ".join(q.marker for q in dict.fromkeys(found))

    return _replace(text, hits, marker), tuple(sorted(quoted))


def _hits_many(texts: Sequence[str], seconds: float | None) -> list[list[Hit] | None]:
    """Where each text holds secrets; None for a text not checked in time."""
    limit = REDACT_SECONDS if seconds is None else seconds
    out: list[list[Hit] | None] = [None] * len(texts)
    pending = []
    fast = []
    clean = _known_clean([t for t in texts if len(t) <= MEMO_CHARS and _may_hold(t)])
    for index, text in enumerate(texts):
        if not _may_hold(text) or text in clean:
            out[index] = []
        elif len(text) <= FAST_CHARS and len(text) + _chars(_decoded(text)) <= FAST_CHARS:
            fast.append(index)
        else:
            pending.append(index)
    early = _checked_early([texts[i] for i in fast], limit)
    for at, index in enumerate(fast):
        out[index] = early[at] if at in early else _checked(texts[index])
    _remember_clean(
        [t for t, hits in zip(texts, out, strict=True) if hits == [] and len(t) <= MEMO_CHARS]
    )
    if pending:
        _plugins()  # loaded here, once: the child inherits them
    while pending:
        try:
            done = run_limited(_hits_each, [texts[i] for i in pending], limit, per_item=True)
        except WorkerFailed:
            return out  # what is left stays unchecked
        for at, hits in done.results.items():
            out[pending[at]] = _from_json(hits)
        unfinished = [i for at, i in enumerate(pending) if at not in done.results]
        pending = unfinished[1:]  # texts go in order: the first unfinished one ran out of time
    return out


def load_plugins_early() -> None:
    """Start loading detect-secrets' plugins now, in a child forked on another core
    (``deadline.fork_early``), while this process imports the rest of what it runs: the
    first short texts it checks before loading them itself (a review's claimed names, read
    before any tool starts) are checked there. Nothing when they are loaded here already
    or a fork is unsafe; ``stop_loading_early`` ends a child left unused."""
    if not _plugins.cache_info().currsize:
        _EARLY.start(_plugins, _hits_each)


def stop_loading_early() -> None:
    _EARLY.stop()


def _checked_early(texts: Sequence[str], limit: float) -> dict[int, list[Hit] | None]:
    """What the early child found in ``texts`` (by index), if one waits and the plugins are
    not loaded here: a text it did not answer (it failed or ran out of time) is checked here."""
    child = _EARLY.take() if texts else None
    if child is None:
        return {}
    if _plugins.cache_info().currsize:  # loaded here since: checking here is quicker
        child.close()
        return {}
    try:
        done = child.run(texts, limit, per_item=True)
    except WorkerFailed:
        return {}
    return {at: _from_json(hits) for at, hits in done.results.items()}


_EARLY = EarlySlot()


# A text of at most MEMO_CHARS characters found clean (a claimed file's name, a finding's
# message) is remembered in the sealed result cache (``sensors.cache``: HMAC under this
# machine's review key), keyed by its hash and the detector's version: a gate reading the
# source manifest again, or replaying the pass's findings (each message is redacted when it
# is made), then needs no detect-secrets. Only "clean" is remembered; a forged or unsealed
# entry is a miss.
_MEMO_LABEL = "redact-clean/1"
MEMO_CHARS = 4096


def _known_clean(texts: Sequence[str]) -> set[str]:
    texts = [t for t in dict.fromkeys(texts) if t not in _CLEAN]
    cache = _memo_cache() if texts else None
    if cache is not None:
        keys = {_memo_key(t): t for t in texts}
        try:
            found = cache.get_many(list(keys))
        except Exception:  # noqa: BLE001 (an unreadable memo is a miss: the texts are scanned)
            found = {}
        _CLEAN.update(keys[k] for k, v in found.items() if v is True)
    return _CLEAN


def _remember_clean(texts: Sequence[str]) -> None:
    new = [t for t in dict.fromkeys(texts) if t not in _CLEAN]
    cache = _memo_cache() if new else None
    _CLEAN.update(new)
    if cache is not None:
        try:
            cache.put_many({_memo_key(t): True for t in new})
        except Exception:  # noqa: BLE001 (losing the memo only costs time)
            pass


_CLEAN: set[str] = set()  # this process's clean texts (the detector is deterministic)


def _memo_cache() -> Any:
    """The sealed result cache this process shares (``sensors.cache.shared_cache``)."""
    from aidlc_review.sensors.cache import shared_cache

    return shared_cache()


def _memo_key(text: str) -> str:
    from aidlc_review import __version__
    from aidlc_review.sensors.cache import digest

    return _MEMO_LABEL + ":" + digest(_MEMO_LABEL, __version__, _detector_version(), text)


@functools.cache
def _detector_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("detect-secrets")
    except PackageNotFoundError:
        return "absent"


def _hits_each(texts: Sequence[str]) -> Iterator[tuple[int, list[Hit] | None]]:
    for index, text in enumerate(texts):
        yield index, _checked(text)


def _from_json(hits: list[Any] | None) -> list[Hit] | None:
    if hits is None:
        return None
    return [(start, end, tuple((k, t, v) for k, t, v in found)) for start, end, found in hits]


def _checked(text: str) -> list[Hit] | None:
    """Where ``text`` holds secrets; None when its decoded runs are too much to check."""
    decoded = _decoded(text)
    if _chars(decoded) > DECODED_TIMES * len(text):
        return None
    return _hits(text, decoded)


def _hits(text: str, decoded: Sequence[_Decoded]) -> list[Hit]:
    """Each encoded run whose decoded text holds a secret, and each plain secret's token;
    where they overlap, the one starting first and reaching furthest (an encoded run over a
    plain match of the same span) is kept, stretched over the others."""
    hits: list[Hit] = []
    for run in decoded:
        inside = [secret for *_, secrets in _hits(run.text, run.inner) for secret in secrets]
        if inside:
            hits.append((run.start, run.end, tuple(dict.fromkeys(inside))))
    values = _secret_values(text)
    widen = _widener(text)
    hits += sorted(
        (start, end, ((values[value], text[start:end], value),))
        for value in values
        for start, end in (widen(*m.span()) for m in re.finditer(re.escape(value), text))
    )
    kept: list[Hit] = []
    for start, end, secrets in sorted(hits, key=lambda hit: (hit[0], -hit[1])):  # stable
        if kept and start < kept[-1][1]:
            kept[-1] = (kept[-1][0], max(end, kept[-1][1]), kept[-1][2])
        else:
            kept.append((start, end, secrets))
    return kept


def _replace(text: str, hits: list[Hit], marker: Callable[[tuple[Secret, ...]], str]) -> str:
    out, at = [], 0
    for start, end, secrets in hits:  # in order, none overlapping (``_hits``)
        out.append(text[at:start] + marker(secrets))
        at = end
    return "".join(out) + text[at:]


def _may_hold(text: str) -> bool:
    """Whether ``text`` has a run long enough to be, or to encode, a secret."""
    if _LONG_RUN.search(text):
        return True
    return "%" in text and any("%" in m.group() for m in _PERCENT_RUN.finditer(text))


def _decoded(text: str, depth: int = 0) -> tuple[_Decoded, ...]:
    """Every run of ``text`` that decodes to mostly printable text worth checking."""
    if depth >= DECODE_DEPTH:
        return ()
    found = []
    for start, end, data in _encoded_runs(text):
        decoded = _printable(data)
        if decoded is not None and _may_hold(decoded):
            found.append(_Decoded(start, end, decoded, _decoded(decoded, depth + 1)))
    return tuple(found)


def _chars(decoded: Sequence[_Decoded]) -> int:
    return sum(len(run.text) + _chars(run.inner) for run in decoded)


def _encoded_runs(text: str) -> Iterator[tuple[int, int, bytes]]:
    """Each run that may be encoded, as (start, end, its bytes decoded): the span is the
    whole token around it, as for a plain secret."""
    widen = _widener(text)
    for match in _BASE64_RUN.finditer(text):
        start, end = widen(*match.span())
        run = match.group().rstrip("=")
        yield start, end, _from_base64(run)
        for piece in _BASE64_PIECES:
            parts = piece.findall(run)
            for part in parts if len(parts) <= _MOST_PIECES else ():
                if part != run:
                    yield start, end, _from_base64(part)
    for match in _HEX_RUN.finditer(text):
        start, end = widen(*match.span())
        yield start, end, bytes.fromhex(match.group()[: len(match.group()) // 2 * 2])
    if "%" in text:
        for match in _PERCENT_RUN.finditer(text):
            if "%" in match.group():
                yield match.start(), match.end(), urllib.parse.unquote_to_bytes(match.group())


def _from_base64(run: str) -> bytes:
    body = run.replace("-", "+").replace("_", "/")  # URL-safe read as standard
    if len(body) % 4 == 1:  # a last lone character carries no whole byte
        body = body[:-1]
    try:
        return base64.b64decode(body + "=" * (-len(body) % 4), validate=True)
    except binascii.Error:  # pragma: no cover - the run is all base64 characters
        return b""


def _printable(data: bytes) -> str | None:
    """``data`` as text when it mostly is: a few stray bytes (a misaligned start) may stay."""
    text = data.decode("utf-8", "replace")
    unshown = len(_UNSHOWN.findall(text))
    return text if text and unshown <= (1 - PRINTABLE_SHARE) * len(text) else None


def _secret_values(text: str) -> dict[str, str]:
    """Each secret value in ``text`` and the type of the first plugin that found it; and the
    value of each ``NAME=value`` / ``name: value`` whose name says it is a credential, as
    ``.env`` files, credential files and shell exports write them (detect-secrets' keyword
    plugin wants quotes outside a file it knows to be configuration)."""
    found: dict[str, str] = {}
    for plugin in _plugins() if _LONG_RUN.search(text) else ():
        # analyze_string, not analyze_line: the latter may try to verify a secret online
        for value in plugin.analyze_string(text):
            if value and _passes_limit(plugin, value):
                found.setdefault(value, str(plugin.secret_type))
    for match in _KEY_VALUE.finditer(text):  # a plugin's own name for it goes first
        if not any(match.group("value") in value for value in found):
            found.setdefault(match.group("value"), KEY_VALUE_TYPE)
    return found


def _passes_limit(plugin: Any, value: str) -> bool:
    limit = getattr(plugin, "entropy_limit", None)
    return limit is None or plugin.calculate_shannon_entropy(value) > limit


def _hash(value: str) -> str:
    # detect-secrets' own PotentialSecret.hash_secret: what secret-scan findings carry
    return hashlib.sha1(value.encode("utf-8")).hexdigest()


def _widener(text: str) -> Callable[[int, int], tuple[int, int]]:
    """Widen a span of ``text`` to the whole token around it (a plugin may match a prefix);
    the tokens are found once, so many matches in one long token cost no more than one."""
    tokens = [match.span() for match in _TOKEN.finditer(text)]
    starts = [start for start, _ in tokens]

    def around(at: int) -> tuple[int, int] | None:
        index = bisect.bisect_right(starts, at) - 1
        return tokens[index] if index >= 0 and at < tokens[index][1] else None

    def widen(start: int, end: int) -> tuple[int, int]:
        before, after = around(start - 1) if start else None, around(end)
        return (before[0] if before else start), (after[1] if after else end)

    return widen


@functools.cache
def _plugins() -> tuple[Any, ...]:
    """One instance of every built-in plugin with its defaults (no global settings touched),
    loaded where no fork can copy them half-imported (``deadline.no_fork``)."""
    with no_fork():
        try:
            from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
        except ImportError:
            return ()
        classes: list[Any] = list(get_mapping_from_secret_type_to_class().values())
        return tuple(cls() for cls in classes)
