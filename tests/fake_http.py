"""The shell shared by the local fake services: an HTTP server on 127.0.0.1 (port 0) in a daemon
thread, answering each request from a queue of scripted replies first, then from a handler function.

Subclasses define ``start()`` with their ``BaseHTTPRequestHandler`` (the wire format of the service
they fake) and call :meth:`ScriptedServer._serve`; they turn a scripted item into their own reply
type in ``_next``.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class QuietHandler(BaseHTTPRequestHandler):
    """A request handler that does not log, and reads a JSON request body."""

    def log_message(self, *args: Any) -> None:
        pass

    def read_json(self) -> tuple[bytes, dict, Any]:
        """(raw body, headers with lowercase names, parsed JSON or None when the body is not
        JSON)."""
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        return raw, {k.lower(): v for k, v in self.headers.items()}, body


class ScriptedServer:
    def __init__(self, handler: Callable[[Any], Any] | None = None):
        self.handler = handler
        self.requests: list = []
        self._queue: deque = deque()
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def push(self, *replies: Any):
        """Queue replies to serve first, in order."""
        with self._lock:
            self._queue.extend(replies)
        return self

    def _scripted(self, req: Any) -> Any:
        """The next queued reply, else ``handler(req)``, else None (the subclass's default)."""
        with self._lock:
            item = self._queue.popleft() if self._queue else None
        if item is None and self.handler:
            item = self.handler(req)
        return item

    @property
    def address(self) -> tuple[str, int]:
        assert self._server is not None, "server not started"
        host, port = self._server.server_address[:2]
        return host, port

    def _serve(self, handler_class: type[BaseHTTPRequestHandler]):
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler_class)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def start(self):  # pragma: no cover - subclasses
        raise NotImplementedError

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
