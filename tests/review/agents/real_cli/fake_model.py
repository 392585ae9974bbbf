"""A fake model server on loopback that the real agent CLIs talk to in tests.

It speaks the two wire formats the CLIs use, streaming as the real APIs do: Anthropic's
Messages API (``POST /v1/messages``, server-sent events) for Claude Code, reached through
``ANTHROPIC_BASE_URL``; OpenAI's Responses API (``POST /v1/responses``, server-sent events)
for Codex, reached through a model provider in its config. What the model "does" is the
test's script: a list of turns (a tool call or a final text), served in order to the CLI's
main conversation; every request is kept for the test to read. The server is bounded: it
stops itself after ``lifetime`` seconds even if the test forgets to.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Text:
    """The model's final answer for the turn."""

    text: str


@dataclass(frozen=True)
class Tool:
    """The model asks to run a tool. ``name`` and ``arguments`` as the CLI offered it."""

    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Failure:
    """The API answers with an HTTP error (``status``) and this error body."""

    status: int
    kind: str = "api_error"
    message: str = "Internal server error"


Turn = Text | Tool | Failure
# a turn, or what the model answers after reading the request (e.g. the IDs in a brief)
Step = Turn | Callable[["Seen"], Turn]
USAGE = {"input_tokens": 1200, "output_tokens": 80, "cache_read": 300, "cache_write": 40}


@dataclass
class Seen:
    """One request the server received."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def text(self) -> str:
        """The whole request as text: to look for what reached the model."""
        return json.dumps(self.body)


@dataclass
class FakeModel:
    """The script and what was seen; ``main`` tells the CLI's main conversation from its
    side requests (Claude Code asks a small model for titles and such), which get a text."""

    turns: list[Step]
    seen: list[Seen] = field(default_factory=list)
    served: int = 0
    main: Callable[[Seen], bool] = lambda seen: True
    side_text: str = "Review"
    lock: threading.Lock = field(default_factory=threading.Lock)

    def next_turn(self, seen: Seen) -> Turn:
        with self.lock:
            self.seen.append(seen)
            if not self.main(seen):
                return Text(self.side_text)
            step = self.turns[min(self.served, len(self.turns) - 1)]
            self.served += 1
        return step(seen) if callable(step) else step

    @property
    def conversation(self) -> list[Seen]:
        return [s for s in self.seen if self.main(s)]


def _sse(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def anthropic_events(turn: Text | Tool, model: str, ids: Iterator[int]) -> Iterator[bytes]:
    """One streamed Messages API answer: a text block, or a tool_use block."""
    n = next(ids)
    usage = {
        "input_tokens": USAGE["input_tokens"],
        "output_tokens": 1,
        "cache_creation_input_tokens": USAGE["cache_write"],
        "cache_read_input_tokens": USAGE["cache_read"],
    }
    message = {
        "id": f"msg_{n:04d}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage,
    }
    yield _sse("message_start", {"type": "message_start", "message": message})
    if isinstance(turn, Tool):
        block = {"type": "tool_use", "id": f"toolu_{n:04d}", "name": turn.name, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(turn.arguments)}
        stop = "tool_use"
    else:
        block, delta, stop = (
            {"type": "text", "text": ""},
            {"type": "text_delta", "text": turn.text},
            "end_turn",
        )
    yield _sse(
        "content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}
    )
    yield _sse("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta})
    yield _sse("content_block_stop", {"type": "content_block_stop", "index": 0})
    yield _sse(
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop, "stop_sequence": None},
            "usage": {"output_tokens": USAGE["output_tokens"]},
        },
    )
    yield _sse("message_stop", {"type": "message_stop"})


def responses_events(turn: Text | Tool, model: str, ids: Iterator[int]) -> Iterator[bytes]:
    """One streamed Responses API answer: an assistant message, or a function call."""
    n = next(ids)
    response = {
        "id": f"resp_{n:04d}",
        "object": "response",
        "model": model,
        "status": "in_progress",
        "output": [],
    }
    yield _sse("response.created", {"type": "response.created", "response": response})
    if isinstance(turn, Tool):
        item: dict[str, Any] = {
            "type": "function_call",
            "id": f"fc_{n:04d}",
            "call_id": f"call_{n:04d}",
            "name": turn.name,
            "arguments": json.dumps(turn.arguments),
            "status": "completed",
        }
    else:
        item = {
            "type": "message",
            "id": f"msg_{n:04d}",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": turn.text, "annotations": []}],
        }
        yield _sse(
            "response.output_item.added",
            {
                "type": "response.output_item.added",
                "output_index": 0,
                "item": {**item, "content": [], "status": "in_progress"},
            },
        )
        yield _sse(
            "response.output_text.delta",
            {
                "type": "response.output_text.delta",
                "item_id": item["id"],
                "output_index": 0,
                "content_index": 0,
                "delta": turn.text,
            },
        )
    yield _sse(
        "response.output_item.done",
        {"type": "response.output_item.done", "output_index": 0, "item": item},
    )
    usage = {
        "input_tokens": USAGE["input_tokens"] + USAGE["cache_read"],
        "input_tokens_details": {"cached_tokens": USAGE["cache_read"]},
        "output_tokens": USAGE["output_tokens"],
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": USAGE["input_tokens"] + USAGE["cache_read"] + USAGE["output_tokens"],
    }
    done = {**response, "status": "completed", "output": [item], "usage": usage}
    yield _sse("response.completed", {"type": "response.completed", "response": done})


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet
        return None

    def do_GET(self) -> None:  # noqa: N802
        self._reply(404, {"error": {"type": "not_found", "message": "no such endpoint"}})

    def do_HEAD(self) -> None:  # noqa: N802
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self) -> None:  # noqa: N802
        size = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(size) if size else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"raw": raw.decode("utf-8", "replace")}
        path = self.path.split("?", 1)[0]
        seen = Seen(path, {k.lower(): v for k, v in self.headers.items()}, body)
        if path.endswith("/messages/count_tokens"):
            self.server.model.seen.append(seen)
            self._reply(200, {"input_tokens": 100})
            return
        if not path.endswith(("/messages", "/responses")):
            self.server.model.seen.append(seen)
            self._reply(404, {"error": {"type": "not_found", "message": f"no {path}"}})
            return
        turn = self.server.model.next_turn(seen)
        if isinstance(turn, Failure):
            self._reply(
                turn.status,
                {"type": "error", "error": {"type": turn.kind, "message": turn.message}},
            )
            return
        events = anthropic_events if path.endswith("/messages") else responses_events
        chunks = events(turn, str(body.get("model", "fake-model")), self.server.ids)
        if path.endswith("/messages") and not body.get("stream"):
            self._reply(200, _collected(turn, str(body.get("model", "fake-model"))))
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        for chunk in chunks:
            self.wfile.write(chunk)
            self.wfile.flush()
        self.close_connection = True

    def _reply(self, status: int, data: dict[str, Any]) -> None:
        payload = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


def _collected(turn: Text | Tool, model: str) -> dict[str, Any]:
    """A non-streamed Messages API answer (side requests may ask for one)."""
    if isinstance(turn, Tool):
        content: dict[str, Any] = {
            "type": "tool_use",
            "id": "toolu_x",
            "name": turn.name,
            "input": turn.arguments,
        }
    else:
        content = {"type": "text", "text": turn.text}
    return {
        "id": "msg_x",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [content],
        "stop_reason": "tool_use" if isinstance(turn, Tool) else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": USAGE["input_tokens"], "output_tokens": USAGE["output_tokens"]},
    }


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, model: FakeModel) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.model = model
        self.ids = itertools.count(1)


class Serving:
    """The running server: ``url`` to point a CLI at; stop() (or the lifetime) ends it."""

    def __init__(self, model: FakeModel, lifetime: float = 120.0) -> None:
        self.model = model
        self._server = _Server(model)
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), daemon=True
        )
        self._timer = threading.Timer(lifetime, self.stop)
        self._timer.daemon = True

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> Serving:
        self._thread.start()
        self._timer.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()

    def stop(self) -> None:
        self._timer.cancel()
        self._server.shutdown()
        self._server.server_close()
