"""A local fake OpenAI-compatible server for tests: real HTTP on 127.0.0.1, scriptable replies.

    with FakeOpenAI(handler=lambda req: Reply(content='{"answer": null}')) as srv:
        client = ChatClient(srv.base_url, "fake-model")

* ``srv.push(reply, ...)`` queues replies served first, in order (a :class:`Reply` or a plain string
  = content); then ``handler(request)`` is called (a :class:`Request` -> :class:`Reply` or string);
  without a handler an empty JSON object ``{}`` is the content.
* A :class:`Reply` can set ``status`` (429 / 500 / 400 ...), ``headers`` (``Retry-After``),
  ``delay`` seconds before answering, ``trickle`` seconds between the body's bytes (sent one at a
  time after the headers), ``body`` (raw bytes, e.g. a broken envelope), ``usage`` and
  ``finish_reason``.
* Every request is recorded in ``srv.requests`` (path, headers with lowercase names, parsed JSON
  body); ``srv.max_in_flight`` is the largest number of requests handled at once.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.fake_http import QuietHandler, ScriptedServer

__all__ = ["FakeOpenAI", "Reply", "Request", "completion_body", "user_text"]


@dataclass
class Reply:
    content: str | None = "{}"
    status: int = 200
    headers: dict = field(default_factory=dict)
    delay: float = 0.0
    body: bytes | None = None  # raw response body; overrides the generated envelope
    usage: dict | None = None
    finish_reason: str = "stop"
    trickle: float = 0.0  # seconds between body bytes; 0 sends the body at once


@dataclass
class Request:
    path: str
    headers: dict
    body: Any  # parsed JSON, or None when the body was not JSON
    raw: bytes


def user_text(req: Request) -> str:
    """All message contents of a request joined by newlines (string contents only)."""
    msgs = (req.body or {}).get("messages", []) if isinstance(req.body, dict) else []
    return "\n".join(m.get("content", "") for m in msgs if isinstance(m.get("content"), str))


def completion_body(
    content: str | None,
    model: str = "fake-model",
    usage: dict | None = None,
    finish_reason: str = "stop",
) -> bytes:
    usage = usage or {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    return json.dumps(
        {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 0,
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "finish_reason": finish_reason,
                    "message": {"role": "assistant", "content": content},
                }
            ],
            "usage": usage,
        }
    ).encode("utf-8")


class FakeOpenAI(ScriptedServer):
    def __init__(
        self, handler: Callable[[Request], Reply | str] | None = None, *, delay: float = 0.0
    ):
        super().__init__(handler)
        self.delay = delay  # default delay of every reply (added to the reply's own)
        self.max_in_flight = 0
        self._in_flight = 0

    def _next(self, req: Request) -> Reply:
        item = self._scripted(req)
        if item is None:
            return Reply()
        return Reply(content=item) if isinstance(item, str) else item

    @property
    def base_url(self) -> str:
        host, port = self.address
        return f"http://{host}:{port}/v1"

    def start(self) -> FakeOpenAI:
        fake = self

        class Handler(QuietHandler):
            def do_POST(self) -> None:
                raw, headers, body = self.read_json()
                req = Request(self.path, headers, body, raw)
                with fake._lock:
                    fake.requests.append(req)
                    fake._in_flight += 1
                    fake.max_in_flight = max(fake.max_in_flight, fake._in_flight)
                try:
                    if self.path.rstrip("/") != "/v1/chat/completions":
                        return self._send(404, b'{"error": "not found"}', {})
                    rep = fake._next(req)
                    if rep.delay + fake.delay:
                        time.sleep(rep.delay + fake.delay)
                    if rep.body is not None:
                        data = rep.body
                    elif rep.status == 200:
                        model = (
                            body.get("model", "fake-model")
                            if isinstance(body, dict)
                            else "fake-model"
                        )
                        data = completion_body(rep.content, model, rep.usage, rep.finish_reason)
                    else:
                        data = json.dumps({"error": {"message": f"status {rep.status}"}}).encode()
                    self._send(rep.status, data, rep.headers, rep.trickle)
                finally:
                    with fake._lock:
                        fake._in_flight -= 1

            def _send(self, status: int, data: bytes, headers: dict, trickle: float = 0.0) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in headers.items():
                    self.send_header(k, str(v))
                self.end_headers()
                try:
                    if not trickle:
                        self.wfile.write(data)
                    for i in range(len(data) if trickle else 0):
                        self.wfile.write(data[i : i + 1])
                        self.wfile.flush()
                        time.sleep(trickle)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        return self._serve(Handler)
