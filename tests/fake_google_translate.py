"""A local fake of Google Cloud Translation v3 (REST) for tests: real HTTP on 127.0.0.1, scriptable
replies.

    with FakeGoogleTranslate() as srv:
        gt = GoogleTranslator("test-project", endpoint=srv.endpoint)

It answers ``POST /v3/projects/{project}/locations/{location}:translateText`` -- the path and the
camelCase JSON body the generated REST transport sends (``contents``, ``mimeType``,
``sourceLanguageCode``, ``targetLanguageCode``, ``model``) -- with ``{"translations":
[{"translatedText": ...}, ...]}``, one per content.

* The default "translation" is deterministic: every text run outside a ``<span
  translate="no">...</span>`` is wrapped as ``[fr]...[/fr]`` (the target code) and re-escaped the
  way Google does it (``'`` as ``&#39;``, ``"`` as ``&quot;``); protected spans are returned
  untouched. :func:`fake_translate` is that function.
* ``srv.push(reply, ...)`` queues replies served first, in order; then ``handler(request)`` is
  called (a :class:`Request` -> :class:`Reply`); without a handler a plain ``Reply()``.
* A :class:`Reply` can set ``status`` (429 / 500 / 503 / 400 ...), ``transform`` (``(content,
  target) -> str``, replacing :func:`fake_translate`: see :func:`dropping`, :func:`duplicating`,
  :func:`translating_inside`), ``body`` (raw bytes) and ``delay`` seconds.
* Every request is recorded in ``srv.requests`` (path, query, headers with lowercase names, parsed
  JSON body).
"""

from __future__ import annotations

import html
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from tests.fake_http import QuietHandler, ScriptedServer

__all__ = [
    "FakeGoogleTranslate",
    "Reply",
    "Request",
    "fake_translate",
    "dropping",
    "duplicating",
    "translating_inside",
    "PATH",
]

PATH = re.compile(r"^/v3/projects/(?P<project>[^/]+)/locations/(?P<location>[^/:]+):translateText$")
SPAN = re.compile(r'(<span translate="no">.*?</span>)', re.S)


def _google_escape(text: str) -> str:
    return (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&#39;")
    )


def fake_translate(content: str, target: str) -> str:
    """Wrap each non-protected text run as ``[target]...[/target]`` (re-escaped Google-style); keep
    spans."""
    out = []
    for part in SPAN.split(content):
        if SPAN.fullmatch(part) or not part.strip():
            out.append(part)
        else:
            out.append(f"[{target}]{_google_escape(html.unescape(part))}[/{target}]")
    return "".join(out)


def _span(name: str) -> str:
    return f'<span translate="no">{{{name}}}</span>'


def dropping(name: str) -> Callable[[str, str], str]:
    """A transform that translates normally, then loses the placeholder ``{name}`` (span and
    all)."""
    return lambda content, target: fake_translate(content, target).replace(_span(name), "")


def duplicating(name: str) -> Callable[[str, str], str]:
    """A transform that translates normally, then repeats the placeholder ``{name}``."""
    return lambda content, target: fake_translate(content, target).replace(
        _span(name), _span(name) + " " + _span(name)
    )


def translating_inside(name: str, new: str) -> Callable[[str, str], str]:
    """A transform that ignores ``translate="no"`` for ``{name}`` and "translates" it to
    ``{new}``."""
    return lambda content, target: fake_translate(content, target).replace(_span(name), _span(new))


@dataclass
class Reply:
    status: int = 200
    transform: Callable[[str, str], str] | None = None  # (content, target code) -> translated text
    body: bytes | None = None  # raw response body; overrides the generated one
    delay: float = 0.0


@dataclass
class Request:
    path: str
    query: str
    headers: dict
    body: Any  # parsed JSON, or None when the body was not JSON
    raw: bytes
    status: int | None = (
        None  # what the fake answered (None: not routed / rejected before scripting)
    )

    @property
    def contents(self) -> list[str]:
        return list((self.body or {}).get("contents", [])) if isinstance(self.body, dict) else []


class FakeGoogleTranslate(ScriptedServer):
    def __init__(self, handler: Callable[[Request], Reply] | None = None):
        super().__init__(handler)

    def _next(self, req: Request) -> Reply:
        return self._scripted(req) or Reply()

    @property
    def ok_requests(self) -> list[Request]:
        """Requests that were answered with translations (status 200), in order."""
        return [r for r in self.requests if r.status == 200]

    # -- server ------------------------------------------------------------------------------------
    @property
    def endpoint(self) -> str:
        host, port = self.address
        return f"http://{host}:{port}"

    def start(self) -> FakeGoogleTranslate:
        fake = self

        class Handler(QuietHandler):
            def do_POST(self) -> None:
                raw, headers, body = self.read_json()
                url = urlsplit(self.path)
                req = Request(url.path, url.query, headers, body, raw)
                with fake._lock:
                    fake.requests.append(req)
                if not PATH.match(url.path):
                    return self._send(
                        404, {"error": {"code": 404, "message": "not found", "status": "NOT_FOUND"}}
                    )
                if not isinstance(body, dict) or not body.get("targetLanguageCode"):
                    return self._send(
                        400,
                        {
                            "error": {
                                "code": 400,
                                "message": "bad request",
                                "status": "INVALID_ARGUMENT",
                            }
                        },
                    )
                rep = fake._next(req)
                req.status = rep.status
                if rep.delay:
                    time.sleep(rep.delay)
                if rep.body is not None:
                    return self._send(rep.status, rep.body)
                if rep.status != 200:
                    return self._send(
                        rep.status,
                        {"error": {"code": rep.status, "message": f"status {rep.status}"}},
                    )
                transform = rep.transform or fake_translate
                target = body["targetLanguageCode"]
                out = {
                    "translations": [{"translatedText": transform(c, target)} for c in req.contents]
                }
                if body.get("model"):
                    for t in out["translations"]:
                        t["model"] = body["model"]
                self._send(200, out)

            def _send(self, status: int, payload: Any) -> None:
                data = (
                    payload if isinstance(payload, bytes) else json.dumps(payload).encode("utf-8")
                )
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=UTF-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                try:
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        return self._serve(Handler)
