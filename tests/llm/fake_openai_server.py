"""A real HTTP server on 127.0.0.1 that speaks the OpenAI chat-completions protocol, for tests.

Serves `POST <anything>/chat/completions` (so `/v1/...` for the OpenAI SDK and `/openai/v1/...` for the
Groq SDK), both plain JSON and SSE streaming (`"stream": true`). Replies follow a script: each request
takes the next `FakeReply`, and when the script is used up `default` answers. Every request is recorded.

    with FakeOpenAIServer([FakeReply(status=429), FakeReply(text="hi")]) as server:
        client = openai.OpenAI(api_key="sk-test", base_url=server.base_url)
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class FakeReply:
    """One scripted reply.

    `status` 200 answers with `text` (split into `pieces` when streaming, default: word by word);
    any other status sends an OpenAI-style error body whose message is `error_message`. `delay` is
    seconds to wait before answering (for timeouts). `usage` is (prompt, completion) tokens, or None to
    send no usage at all; in a stream the usage chunk is sent only when the request asked for it with
    `stream_options.include_usage` (or `stream_usage_always`). `echo_auth` copies the request's
    Authorization header into the error message (to test that clients redact it). `retry_after_ms`
    is sent on errors so that SDK retries are quick.
    """

    status: int = 200
    text: str = "Hello from the fake server."
    pieces: Sequence[str] | None = None
    delay: float = 0.0
    usage: tuple[int, int] | None = (12, 6)
    error_message: str = ""
    echo_auth: bool = False
    retry_after_ms: int | None = 1
    stream_usage_always: bool = False
    model: str = "fake-model"
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class RecordedRequest:
    """What one request looked like (header names in lower case)."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]


class FakeOpenAIServer:
    """An OpenAI-compatible chat server in a background thread; `start()` returns the `/v1` base URL.

    `reject_params` makes the server answer 400 "Unrecognized request argument supplied: <name>" to any
    request carrying one of those body fields (like servers that do not know `stream_options`).
    """

    def __init__(self, script: Iterable[FakeReply] = (), *, default: FakeReply | None = None,
                 reject_params: Iterable[str] = ()) -> None:
        self.script: list[FakeReply] = list(script)
        self.default = default or FakeReply()
        self.reject_params = frozenset(reject_params)
        self.requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -----------------------------------------------------------------------------------

    def start(self) -> str:
        """Start serving on a free loopback port; return the base URL (`http://127.0.0.1:<port>/v1`)."""
        if self._httpd is not None:
            return self.base_url
        self._stopping.clear()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="fake-openai-server", daemon=True)
        self._thread.start()
        return self.base_url

    def stop(self) -> None:
        """Stop serving (delayed replies are cut short) and free the port."""
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None
        self._thread = None

    def __enter__(self) -> FakeOpenAIServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The port it listens on (after `start`)."""
        if self._httpd is None:
            raise RuntimeError("the fake server is not started")
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """`http://127.0.0.1:<port>/v1`, for `openai.OpenAI(base_url=...)` / `OPENAI_BASE_URL`."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def root_url(self) -> str:
        """`http://127.0.0.1:<port>`, for clients that add their own path (e.g. `groq.Groq`)."""
        return f"http://127.0.0.1:{self.port}"

    # -- script --------------------------------------------------------------------------------------

    def add(self, *replies: FakeReply) -> None:
        """Append replies to the script."""
        with self._lock:
            self.script.extend(replies)

    def _next_reply(self, request: RecordedRequest) -> FakeReply:
        with self._lock:
            self.requests.append(request)
            return self.script.pop(0) if self.script else self.default

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                server._handle(self)

            def do_GET(self) -> None:
                self.send_error(404)

        return Handler

    # -- replies -------------------------------------------------------------------------------------

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            body = {}
        if not handler.path.rstrip("/").endswith("/chat/completions"):
            handler.send_error(404)
            return
        headers = {name.lower(): value for name, value in handler.headers.items()}
        request = RecordedRequest(path=handler.path, headers=headers, body=body)
        reply = self._next_reply(request)
        if reply.delay and self._stopping.wait(reply.delay):
            return
        try:
            rejected = sorted(self.reject_params.intersection(body))
            if rejected:
                self._send_error(handler, FakeReply(status=400, retry_after_ms=None,
                                                    error_message=f"Unrecognized request argument supplied: "
                                                                  f"{rejected[0]}"), request)
            elif reply.status != 200:
                self._send_error(handler, reply, request)
            elif body.get("stream"):
                self._send_stream(handler, reply, body)
            else:
                self._send_json(handler, 200, self._completion(reply), reply.headers)
        except (BrokenPipeError, ConnectionResetError):
            return  # the client gave up (timeout)

    @staticmethod
    def _send_json(handler: BaseHTTPRequestHandler, status: int, payload: dict[str, Any],
                   headers: dict[str, str]) -> None:
        data = json.dumps(payload).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        for name, value in headers.items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(data)

    def _send_error(self, handler: BaseHTTPRequestHandler, reply: FakeReply, request: RecordedRequest) -> None:
        message = reply.error_message or f"fake error {reply.status}"
        if reply.echo_auth:
            message += f" (you sent Authorization: {request.headers.get('authorization', '')})"
        headers = dict(reply.headers)
        if reply.retry_after_ms is not None:
            headers.setdefault("retry-after-ms", str(reply.retry_after_ms))
        kind = {401: "invalid_api_key", 429: "rate_limit_exceeded"}.get(reply.status, "server_error")
        payload = {"error": {"message": message, "type": kind, "code": kind}}
        self._send_json(handler, reply.status, payload, headers)

    @staticmethod
    def _usage(reply: FakeReply) -> dict[str, int] | None:
        if reply.usage is None:
            return None
        prompt, completion = reply.usage
        return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}

    def _completion(self, reply: FakeReply) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": reply.model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": reply.text},
                         "finish_reason": "stop"}],
        }
        usage = self._usage(reply)
        if usage is not None:
            payload["usage"] = usage
        return payload

    def _send_stream(self, handler: BaseHTTPRequestHandler, reply: FakeReply, body: dict[str, Any]) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Cache-Control", "no-cache")
        handler.send_header("Connection", "close")
        for name, value in reply.headers.items():
            handler.send_header(name, value)
        handler.end_headers()
        pieces = list(reply.pieces) if reply.pieces is not None else _word_pieces(reply.text)
        base = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": int(time.time()),
                "model": reply.model}

        def send(data: dict[str, Any] | str) -> None:
            text = data if isinstance(data, str) else json.dumps(data)
            handler.wfile.write(f"data: {text}\n\n".encode())
            handler.wfile.flush()

        send({**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""},
                                   "finish_reason": None}]})
        for piece in pieces:
            send({**base, "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]})
        send({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
        wants_usage = bool((body.get("stream_options") or {}).get("include_usage")) or reply.stream_usage_always
        usage = self._usage(reply)
        if wants_usage and usage is not None:
            send({**base, "choices": [], "usage": usage})
        send("[DONE]")
        handler.close_connection = True


def _word_pieces(text: str) -> list[str]:
    """Split text into word-sized pieces that join back to it exactly."""
    pieces: list[str] = []
    for index, word in enumerate(text.split(" ")):
        pieces.append(word if index == 0 else " " + word)
    return [piece for piece in pieces if piece]
