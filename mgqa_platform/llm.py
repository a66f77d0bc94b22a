"""A small OpenAI-compatible chat client: JSON-schema replies, bounded retries, no secrets in sight.

Plain Python (httpx, no Dagster). One :class:`ChatClient` talks to one
``{base_url}/chat/completions`` endpoint and one model; it is shared by the evaluation runner, and
later the translation judge and the post-edit ensemble.

* **Requests**: ``{"model", "messages", "temperature"}`` plus, when a schema is given,
  ``"response_format": {"type": "json_schema", "json_schema": {"name", "schema", "strict": true}}``
  (``structured_output="json_object"`` sends ``{"type": "json_object"}`` instead, ``"none"``
  nothing); ``extra_body`` is merged in last (``max_tokens``, ``seed``, provider options...).
* **Retries**: 408, 429, 5xx, timeouts, connection errors and unreadable response envelopes are
  retried up to ``max_retries`` times (so at most ``max_retries + 1`` attempts) with exponential
  backoff ``min(max_backoff_s, backoff_s * 2**(n-1))`` scaled by a deterministic jitter factor in
  [0.5, 1.0]; a ``Retry-After`` header in seconds replaces the computed delay (capped at
  :data:`MAX_RETRY_AFTER_S`). Any other 4xx is final at once. ``sleep`` is injectable so tests do
  not wait.
* **Deadline**: besides ``timeout_s`` (connect, and each read), every HTTP request has a total
  deadline ``deadline_s``: a server trickling bytes is cut there (the socket is shut down by a
  timer), and the attempt counts as a ``deadline`` failure (retried like a timeout). A response body
  larger than ``max_response_bytes`` is not read further (``too_large``, not retried).
* **Secrets**: the API key is passed in by the caller (read from the environment there); it is sent
  only as ``Authorization: Bearer <key>``, and never appears in ``repr``, exceptions, results or
  metadata. Everything the server sends back -- reply content included -- is scrubbed of the key and
  of any other ``secrets`` (whole, and pieces of 8 characters or more;
  :func:`mgqa_platform.redact.scrub`) before it is parsed, cut or put in an error;
  :meth:`ChatClient.scrub` does the same for callers' own texts.
* **Threads**: one ``httpx.Client`` (thread-safe connection pool) is shared by all threads.
* **Replies**: :meth:`ChatClient.complete_json` parses strictly -- the whole content must be one
  JSON value, optionally wrapped in a single markdown code fence -- and validates it with
  ``jsonschema``; anything else raises :class:`ReplyError` (which carries the :class:`ChatResult`,
  so its tokens still count).
"""

from __future__ import annotations

import hashlib
import json
import re
import socket
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx
import jsonschema

from mgqa_platform.redact import scrub

__all__ = [
    "ChatClient",
    "ChatResult",
    "LLMError",
    "ReplyError",
    "TransportError",
    "parse_json_content",
    "RETRYABLE_STATUS",
    "MAX_RETRY_AFTER_S",
]

RETRYABLE_STATUS = frozenset({408, 429})  #: plus every 5xx
MAX_RETRY_AFTER_S = 300.0  #: an absurd Retry-After is capped at this many seconds
DEFAULT_DEADLINE_S = 300.0  #: total seconds one HTTP request may take, however the bytes trickle in
MAX_RESPONSE_BYTES = 32 << 20  #: a larger response body is not read
_ERROR_SNIPPET = 300  #: characters of a server error body kept in an exception message
_FENCE = re.compile(r"\A```[ \t]*(?:json|JSON)?[ \t]*\r?\n(?P<body>.*?)\r?\n?```\Z", re.S)


class LLMError(Exception):
    """Base class of every error this module raises."""


class ReplyError(LLMError):
    """The endpoint answered, but the reply content is not the JSON we asked for.

    ``reason`` is a short code (``not_json``, ``schema_violation``, ``empty_reply``...), ``raw`` the
    reply content as received, ``result`` the :class:`ChatResult` (usage and attempts) when there
    was one."""

    def __init__(
        self, reason: str, raw: str = "", detail: str = "", result: ChatResult | None = None
    ):
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.raw = raw
        self.detail = detail
        self.result = result


class TransportError(LLMError):
    """No usable response: a non-retryable HTTP status, or retries exhausted.

    ``status`` is the last HTTP status (``None`` for timeouts / connection errors), ``attempts`` the
    number of requests made, ``reason`` a short code (``http_429``, ``timeout``, ``connect_error``,
    ``bad_response``...)."""

    def __init__(self, reason: str, status: int | None, attempts: int, detail: str = ""):
        msg = f"{reason} after {attempts} attempt(s)" + (
            f" (HTTP {status})" if status is not None else ""
        )
        super().__init__(f"{msg}: {detail}" if detail else msg)
        self.reason = reason
        self.status = status
        self.attempts = attempts
        self.detail = detail


@dataclass(frozen=True)
class ChatResult:
    """One successful completion. ``usage`` always has the three OpenAI token counters (0 when
    absent)."""

    content: str
    usage: dict = field(
        default_factory=lambda: {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
    )
    attempts: int = 1
    model: str = ""
    finish_reason: str | None = None


def parse_json_content(content: str) -> Any:
    """Strictly parse a reply: the whole (stripped) content is one JSON value, or one markdown code
    fence (```json ... ``` or ``` ... ```) holding one. No fishing for JSON inside prose. Raises
    ReplyError."""
    if not isinstance(content, str) or not content.strip():
        raise ReplyError("empty_reply", content if isinstance(content, str) else "")
    text = content.strip()
    m = _FENCE.match(text)
    if m:
        text = m.group("body").strip()
    try:
        return json.loads(text)
    except ValueError as exc:
        raise ReplyError("not_json", content, str(exc)[:200]) from None


class _DeadlineExceeded(Exception):
    """The request passed the client's total deadline."""


class _TooLarge(Exception):
    """The response body passed the client's size cap."""


def _shutdown(stream: Any) -> None:
    """Shut down the socket under an httpcore network stream (a blocked read returns at once)."""
    sock = stream.get_extra_info("socket") if stream is not None else None
    if sock is None:
        return
    try:
        with socket.socket(fileno=sock.fileno()) as dup:  # the raw socket, also under TLS
            try:
                dup.shutdown(socket.SHUT_RDWR)
            finally:
                dup.detach()
    except (OSError, ValueError):  # already closed
        pass


def _usage(d: Any) -> dict:
    d = d if isinstance(d, Mapping) else {}

    def n(k: str) -> int:
        v = d.get(k)
        return int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0 else 0

    p, c = n("prompt_tokens"), n("completion_tokens")
    return {"prompt_tokens": p, "completion_tokens": c, "total_tokens": n("total_tokens") or p + c}


def _retry_after(headers: httpx.Headers) -> float | None:
    """``Retry-After`` in seconds (HTTP-date values are ignored), capped at MAX_RETRY_AFTER_S."""
    v = headers.get("retry-after")
    try:
        s = float(v) if v is not None else None
    except ValueError:
        return None
    return None if s is None or s != s or s < 0 else min(s, MAX_RETRY_AFTER_S)


class ChatClient:
    """OpenAI-compatible ``/chat/completions`` client (see the module docstring)."""

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout_s: float = 60,
        max_retries: int = 5,
        backoff_s: float = 1.0,
        max_backoff_s: float = 30,
        temperature: float = 0.0,
        extra_body: Mapping[str, Any] | None = None,
        transport: httpx.BaseTransport | None = None,
        *,
        sleep: Callable[[float], None] = time.sleep,
        seed: int = 0,
        structured_output: str = "json_schema",
        deadline_s: float = DEFAULT_DEADLINE_S,
        max_response_bytes: int = MAX_RESPONSE_BYTES,
        secrets: Sequence[str] = (),
    ):
        if structured_output not in ("json_schema", "json_object", "none"):
            raise ValueError(
                "structured_output must be json_schema, json_object or none, "
                f"not {structured_output!r}"
            )
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.timeout_s = float(timeout_s)
        self.deadline_s = float(deadline_s)
        self.max_response_bytes = int(max_response_bytes)
        self.max_retries = max(0, int(max_retries))
        self.backoff_s = float(backoff_s)
        self.max_backoff_s = float(max_backoff_s)
        self.temperature = temperature
        self.extra_body = dict(extra_body or {})
        self.structured_output = structured_output
        self.seed = seed
        self._sleep = sleep
        self.__key = api_key or None  # name-mangled; never formatted anywhere
        self.__secrets = tuple(x for x in (api_key, *secrets) if x)
        self._transport = transport
        self._http: httpx.Client | None = None
        self._lock = threading.Lock()

    # -- plumbing ----------------------------------------------------------------------------------
    @property
    def url(self) -> str:
        return f"{self.base_url}/chat/completions"

    @property
    def has_api_key(self) -> bool:
        return self.__key is not None

    def describe(self) -> dict:
        """Safe metadata (no key): endpoint, model, sampling and retry settings."""
        return {
            "base_url": self.base_url,
            "model": self.model,
            "temperature": self.temperature,
            "timeout_s": self.timeout_s,
            "deadline_s": self.deadline_s,
            "max_retries": self.max_retries,
            "structured_output": self.structured_output,
            "extra_body": dict(self.extra_body),
            "api_key_set": self.has_api_key,
        }

    def __repr__(self) -> str:
        return (
            f"ChatClient(base_url={self.base_url!r}, model={self.model!r}, "
            f"api_key={'***' if self.__key else None})"
        )

    def _client(self) -> httpx.Client:
        with self._lock:
            if self._http is None:
                self._http = httpx.Client(  # no keep-alive: every request's socket is its own
                    timeout=self.timeout_s,
                    transport=self._transport,
                    limits=httpx.Limits(max_keepalive_connections=0),
                )
            return self._http

    def close(self) -> None:
        with self._lock:
            if self._http is not None:
                self._http.close()
                self._http = None

    def __enter__(self) -> ChatClient:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def scrub(self, text: str) -> str:
        """``text`` without the API key or any other configured secret (whole or in pieces)."""
        return scrub(text, self.__secrets)

    def _scrub(self, text: str) -> str:
        """Scrubbed first, then cut to an error snippet."""
        return self.scrub(text)[:_ERROR_SNIPPET]

    def _post(
        self, raw_body: bytes, headers: Mapping[str, str]
    ) -> tuple[int, httpx.Headers, bytes]:
        """One POST within :attr:`deadline_s`: (status, headers, body). A timer shuts the socket
        down at the deadline, whatever phase the request is in; raises :class:`_DeadlineExceeded`
        then, and :class:`_TooLarge` when the body passes :attr:`max_response_bytes`."""
        streams: list = []
        fired = threading.Event()

        def trace(event: str, info: Mapping) -> None:
            if event.endswith(("connect_tcp.complete", "start_tls.complete")):
                streams.append(info.get("return_value"))

        def expire() -> None:
            fired.set()
            for stream in list(streams):
                _shutdown(stream)

        timer = threading.Timer(self.deadline_s, expire)
        timer.daemon = True
        timer.start()
        try:
            with self._client().stream(
                "POST", self.url, content=raw_body, headers=headers, extensions={"trace": trace}
            ) as resp:
                streams.append(resp.extensions.get("network_stream"))
                if fired.is_set():
                    raise _DeadlineExceeded
                body = bytearray()
                for chunk in resp.iter_bytes():
                    body += chunk
                    if len(body) > self.max_response_bytes:
                        raise _TooLarge
                    if fired.is_set():
                        raise _DeadlineExceeded
                if fired.is_set():  # a body without a length ends early when the socket is shut
                    raise _DeadlineExceeded
                return resp.status_code, resp.headers, bytes(body)
        except httpx.TransportError:
            if fired.is_set():
                raise _DeadlineExceeded from None
            raise
        finally:
            timer.cancel()

    def backoff_delay(self, retry: int, body_key: str = "") -> float:
        """Seconds to wait before retry number ``retry`` (1-based): exponential, capped, with a
        jitter factor in [0.5, 1.0] derived from (seed, request, retry) -- deterministic, and
        different across requests."""
        base = min(self.max_backoff_s, self.backoff_s * (2 ** (retry - 1)))
        h = hashlib.sha256(f"{self.seed}:{body_key}:{retry}".encode()).digest()
        return base * (0.5 + 0.5 * int.from_bytes(h[:4], "big") / 0xFFFFFFFF)

    def _payload(
        self, messages: Sequence[Mapping], schema: Mapping | None, schema_name: str
    ) -> dict:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [dict(m) for m in messages],
            "temperature": self.temperature,
        }
        if schema is not None and self.structured_output == "json_schema":
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": schema_name, "schema": schema, "strict": True},
            }
        elif schema is not None and self.structured_output == "json_object":
            body["response_format"] = {"type": "json_object"}
        body.update(self.extra_body)
        return body

    # -- API ---------------------------------------------------------------------------------------
    def complete(
        self,
        messages: Sequence[Mapping],
        schema: Mapping | None = None,
        schema_name: str = "answer",
    ) -> ChatResult:
        """One chat completion (with retries). Raises TransportError when no usable response came
        back."""
        body = self._payload(messages, schema, schema_name)
        raw_body = json.dumps(body, ensure_ascii=False).encode("utf-8")
        body_key = hashlib.sha256(raw_body).hexdigest()[:16]
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.__key:
            headers["Authorization"] = f"Bearer {self.__key}"
        attempt = 0
        while True:
            attempt += 1
            status: int | None = None
            retry_after: float | None = None
            try:
                status, resp_headers, data_bytes = self._post(raw_body, headers)
                text = data_bytes.decode("utf-8", "replace")
                if status == 200:
                    try:
                        data = json.loads(text)
                        choice = data["choices"][0]
                        msg = choice.get("message") or {}
                        content = msg.get("content")
                        content = self.scrub(content) if isinstance(content, str) else ""
                        return ChatResult(
                            content=content,
                            usage=_usage(data.get("usage")),
                            attempts=attempt,
                            model=str(data.get("model") or self.model),
                            finish_reason=choice.get("finish_reason"),
                        )
                    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
                        reason, detail = "bad_response", self._scrub(text)
                else:
                    reason, detail = f"http_{status}", self._scrub(text)
                    retry_after = _retry_after(resp_headers)
                    if not (status in RETRYABLE_STATUS or 500 <= status <= 599):
                        raise TransportError(reason, status, attempt, detail)
            except _TooLarge:
                raise TransportError(
                    "too_large", None, attempt, f"more than {self.max_response_bytes} bytes"
                ) from None
            except _DeadlineExceeded:
                reason, detail = "deadline", f"no complete response within {self.deadline_s:g} s"
            except httpx.TimeoutException as exc:
                reason, detail = "timeout", type(exc).__name__
            except httpx.TransportError as exc:  # connection refused/reset, protocol errors
                reason, detail = "connect_error", f"{type(exc).__name__}: {self._scrub(str(exc))}"
            if attempt > self.max_retries:
                raise TransportError(reason, status, attempt, detail)
            self._sleep(
                retry_after if retry_after is not None else self.backoff_delay(attempt, body_key)
            )

    def complete_json(
        self,
        messages: Sequence[Mapping],
        schema: Mapping,
        validate: bool = True,
        schema_name: str = "answer",
    ) -> tuple[Any, ChatResult]:
        """Complete with ``schema`` as the response format; return ``(parsed_obj, ChatResult)``.

        Raises ReplyError (with ``.result``) when the content is not one JSON value (one surrounding
        markdown fence tolerated) or, with ``validate``, does not satisfy ``schema``; TransportError
        as :meth:`complete`."""
        res = self.complete(messages, schema=schema, schema_name=schema_name)
        try:
            obj = parse_json_content(res.content)
        except ReplyError as exc:
            exc.result = res
            if res.finish_reason == "length":
                exc.reason, exc.detail = "truncated", f"finish_reason=length; {exc.detail}"
            raise
        if validate:
            err = jsonschema.exceptions.best_match(
                jsonschema.Draft202012Validator(schema).iter_errors(obj)
            )
            if err is not None:
                path = "/".join(str(p) for p in err.absolute_path) or "(root)"
                raise ReplyError(
                    "schema_violation", res.content, f"{path}: {err.message[:200]}", result=res
                )
        return obj, res
