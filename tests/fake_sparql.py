"""A local SPARQL endpoint for the crawler tests: http.server on 127.0.0.1 answering
CONSTRUCT/DESCRIBE queries (URL-encoded POST, SPARQL 1.1 Protocol) from a pyoxigraph store with
N-Triples, after a queue of scripted replies (status, body, headers; ``{auth}`` in a body echoes the
Authorization header).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs

import pyoxigraph

KWG_SHAPED = Path(__file__).parent / "fixtures" / "kwg_shaped.ttl"


class Endpoint(ThreadingHTTPServer):
    """SPARQL endpoint state: the store, scripted failures to answer first, and request records."""

    daemon_threads = True

    def __init__(self, store: pyoxigraph.Store) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.store = store
        self.script: list[tuple[int, bytes, dict[str, str]]] = []
        self.requests: list[dict[str, str]] = []
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/sparql"


class _Handler(BaseHTTPRequestHandler):
    server: Endpoint

    def log_message(self, *args) -> None:  # keep pytest output clean
        pass

    def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for k, v in {"Content-Type": "text/plain; charset=utf-8", **(headers or {})}.items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length", "0"))).decode("utf-8")
        query = parse_qs(raw).get("query", [""])[0]
        with self.server.lock:
            self.server.requests.append(
                {
                    "authorization": self.headers.get("Authorization", ""),
                    "accept": self.headers.get("Accept", ""),
                    "content_type": self.headers.get("Content-Type", ""),
                    "query": query,
                }
            )
            scripted = self.server.script.pop(0) if self.server.script else None
        if scripted is not None:
            status, body, headers = scripted
            self._send(
                status,
                body.replace(b"{auth}", self.headers.get("Authorization", "").encode()),
                headers,
            )
            return
        try:
            results = self.server.store.query(query)
        except SyntaxError as e:
            self._send(400, f"Parse error: {e}".encode())
            return
        if not isinstance(results, pyoxigraph.QueryTriples):
            self._send(400, b"only CONSTRUCT/DESCRIBE queries are served")
            return
        self._send(
            200,
            results.serialize(format=pyoxigraph.RdfFormat.N_TRIPLES),
            {"Content-Type": "application/n-triples"},
        )


@contextmanager
def serving(store: pyoxigraph.Store) -> Iterator[Endpoint]:
    """Serve ``store`` on 127.0.0.1 (a free port) until the block ends."""
    server = Endpoint(store)
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def kwg_shaped_store() -> pyoxigraph.Store:
    """An in-memory store holding tests/fixtures/kwg_shaped.ttl."""
    store = pyoxigraph.Store()
    store.bulk_load(path=str(KWG_SHAPED), format=pyoxigraph.RdfFormat.TURTLE)
    return store
