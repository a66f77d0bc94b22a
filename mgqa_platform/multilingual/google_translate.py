"""The real translator: Google Cloud Translation v3 (``translateText``), placeholders protected.

Placeholders are marked non-translatable (paper section 3.5): each text is sent as HTML (``mime_type
text/html``) with every ``{name}`` wrapped as ``<span translate="no">{name}</span>`` and the rest
escaped (:func:`protect`); the reply is unwrapped and unescaped (:func:`restore`) and checked --
every source placeholder exactly once, nothing new
(:func:`mgqa_platform.multilingual.translate.checked`); a problem makes the item ``failed`` with its
codes, the text kept for the post-editor.

Texts are grouped into requests of at most ``batch_size`` contents and ``max_chars`` code points (of
the HTML actually sent; the service limit is 30k per request). 429 / 500 / 502 / 503 / 504
(``ResourceExhausted``, ``ServiceUnavailable``, ``DeadlineExceeded``...) and connection errors are
retried with exponential backoff (``initial_backoff_s * 2**n``, capped at ``max_backoff_s``); when a
batch still fails, or fails with a non-retryable error, its items come back ``failed`` with
``error:<ExceptionName>`` -- never an exception.

Credentials: Application Default Credentials (``GOOGLE_APPLICATION_CREDENTIALS`` or the metadata
server), read by the client library and never stored in reprs, errors, logs or metadata.
``endpoint`` overrides the host: an ``http://host:port`` endpoint (a local fake or emulator) is used
without credentials; ``https://host`` or a bare host (e.g. ``translate-eu.googleapis.com``) keeps
ADC. The client uses the REST transport everywhere, so the tests against the local fake exercise the
same code path as production.
"""

from __future__ import annotations

import html
import logging
import re
import time
from collections.abc import Callable, Mapping
from typing import Any

from google.api_core import exceptions as gexc
from google.cloud import translate_v3

from mgqa_platform.languages import language
from mgqa_platform.multilingual.placeholders import PLACEHOLDER
from mgqa_platform.multilingual.translate import Translation, checked, failed

try:  # the REST transport's HTTP library (a dependency of google-api-core's REST support)
    import requests

    _HTTP_ERRORS: tuple[type[BaseException], ...] = (
        requests.exceptions.ConnectionError,
        requests.exceptions.Timeout,
    )
    _REQUEST_ERRORS: tuple[type[BaseException], ...] = (requests.exceptions.RequestException,)
except ImportError:  # pragma: no cover
    _HTTP_ERRORS = _REQUEST_ERRORS = ()

try:
    from google.auth import exceptions as auth_exceptions

    _AUTH_ERRORS: tuple[type[BaseException], ...] = (auth_exceptions.GoogleAuthError,)
except ImportError:  # pragma: no cover
    _AUTH_ERRORS = ()

__all__ = ["GoogleTranslator", "protect", "restore", "batches", "RETRYABLE"]

log = logging.getLogger(__name__)

#: Transient failures worth retrying (ResourceExhausted < TooManyRequests, DeadlineExceeded <
#: GatewayTimeout).
RETRYABLE: tuple[type[BaseException], ...] = (
    gexc.TooManyRequests,
    gexc.InternalServerError,
    gexc.BadGateway,
    gexc.ServiceUnavailable,
    gexc.GatewayTimeout,
    *_HTTP_ERRORS,
)
#: Failures of one request that fail its items instead of the run.
BATCH_ERRORS: tuple[type[BaseException], ...] = (
    gexc.GoogleAPIError,
    *_REQUEST_ERRORS,
    *_AUTH_ERRORS,
    OSError,
)

NO_TRANSLATE_OPEN = '<span translate="no">'
NO_TRANSLATE_CLOSE = "</span>"
_SPAN = re.compile(
    r"""<span\b[^>]*?\btranslate\s*=\s*["']?no["']?[^>]*>(.*?)</span\s*>""", re.I | re.S
)


def protect(text: str) -> str:
    """The HTML sent for a template: text escaped, each ``{name}`` wrapped in ``<span
    translate="no">``."""
    out, pos = [], 0
    for m in PLACEHOLDER.finditer(text):
        out.append(html.escape(text[pos : m.start()]))
        out.append(f"{NO_TRANSLATE_OPEN}{m.group(0)}{NO_TRANSLATE_CLOSE}")
        pos = m.end()
    out.append(html.escape(text[pos:]))
    return "".join(out)


def restore(reply: str) -> str:
    """The plain text of a translated reply: no-translate spans unwrapped, HTML entities
    unescaped."""
    return html.unescape(_SPAN.sub(lambda m: m.group(1), reply))


def batches(
    items: list[tuple[str, str]], batch_size: int, max_chars: int
) -> list[list[tuple[str, str]]]:
    """Group ``(key, content)`` pairs, in order, into runs of at most ``batch_size`` items and
    ``max_chars`` code points of content. A single content longer than ``max_chars`` goes alone (the
    service will judge it)."""
    out: list[list[tuple[str, str]]] = []
    cur: list[tuple[str, str]] = []
    size = 0
    for key, content in items:
        n = len(content)
        if cur and (len(cur) >= batch_size or size + n > max_chars):
            out.append(cur)
            cur, size = [], 0
        cur.append((key, content))
        size += n
    if cur:
        out.append(cur)
    return out


def _reason(exc: BaseException) -> str:
    return type(exc).__name__


def _describe(exc: BaseException) -> str:
    """A short, secret-free description for logs: exception class and HTTP/gRPC code, no message
    body."""
    code = getattr(exc, "code", None)
    return f"{type(exc).__name__}" + (f" ({code})" if code is not None else "")


class GoogleTranslator:
    """Google Cloud Translation v3 translator (``engine = "google:<model or default>"``, status
    ``machine``).

    ``model``: empty for the default NMT model, a short name (``general/nmt``,
    ``general/translation-llm``) expanded to
    ``projects/<project>/locations/<location>/models/<model>``, or a full model resource name.
    ``client``: an already built ``TranslationServiceClient`` (otherwise built on first use).
    ``sleep``: the backoff sleep, injectable for tests. ``stats``: counters of the last
    :meth:`translate_variants` call.
    """

    def __init__(
        self,
        project_id: str,
        location: str = "global",
        model: str | None = None,
        *,
        batch_size: int = 100,
        max_chars: int = 25_000,
        max_retries: int = 5,
        initial_backoff_s: float = 1.0,
        max_backoff_s: float = 32.0,
        timeout_s: float = 120.0,
        client: Any = None,
        endpoint: str | None = None,
        credentials: Any = None,
        sleep: Callable[[float], None] | None = None,
    ):
        if not project_id:
            raise ValueError(
                "GoogleTranslator needs a Google Cloud project id (MGQA_GOOGLE_PROJECT)"
            )
        if batch_size < 1 or max_chars < 1 or max_retries < 0:
            raise ValueError("batch_size and max_chars must be >= 1, max_retries >= 0")
        self.project_id = project_id
        self.location = location or "global"
        self.model = model or None
        self.engine = f"google:{self.model or 'default'}"
        self.batch_size = batch_size
        self.max_chars = max_chars
        self.max_retries = max_retries
        self.initial_backoff_s = initial_backoff_s
        self.max_backoff_s = max_backoff_s
        self.timeout_s = timeout_s
        self.endpoint = endpoint or None
        self._credentials = credentials
        self._client = client
        self._sleep = sleep or time.sleep
        self.stats: dict[str, int] = {}

    def __repr__(self) -> str:
        return (
            f"GoogleTranslator(project_id={self.project_id!r}, location={self.location!r}, "
            f"model={self.model!r}, endpoint={self.endpoint!r})"
        )

    # -- client ------------------------------------------------------------------------------------
    @property
    def parent(self) -> str:
        return f"projects/{self.project_id}/locations/{self.location}"

    @property
    def model_path(self) -> str | None:
        if not self.model:
            return None
        return (
            self.model
            if self.model.startswith("projects/")
            else f"{self.parent}/models/{self.model}"
        )

    def client(self) -> Any:
        """The ``TranslationServiceClient`` (REST transport), built on first use."""
        if self._client is None:
            from google.cloud.translate_v3.services.translation_service.transports import (
                TranslationServiceRestTransport,
            )

            if self.endpoint:
                scheme, _, host = self.endpoint.rpartition("://")
                scheme = scheme or "https"
                creds = self._credentials
                if (
                    creds is None and scheme == "http"
                ):  # a local fake / emulator: no Google credentials
                    from google.auth.credentials import AnonymousCredentials

                    creds = AnonymousCredentials()
                transport = TranslationServiceRestTransport(
                    host=host.rstrip("/"), credentials=creds, url_scheme=scheme
                )
            else:  # Application Default Credentials unless credentials were given
                transport = TranslationServiceRestTransport(credentials=self._credentials)
            self._client = translate_v3.TranslationServiceClient(transport=transport)
        return self._client

    # -- calls -------------------------------------------------------------------------------------
    def _translate_batch(self, contents: list[str], target_google: str) -> list[str]:
        request: dict[str, Any] = {
            "parent": self.parent,
            "contents": contents,
            "mime_type": "text/html",
            "source_language_code": "en",
            "target_language_code": target_google,
        }
        if self.model_path:
            request["model"] = self.model_path
        attempt = 0
        while True:
            self.stats["requests"] = self.stats.get("requests", 0) + 1
            try:
                resp = self.client().translate_text(
                    request=request, retry=None, timeout=self.timeout_s
                )
                return [t.translated_text for t in resp.translations]
            except RETRYABLE as exc:
                if attempt >= self.max_retries:
                    raise
                wait = min(self.initial_backoff_s * 2**attempt, self.max_backoff_s)
                attempt += 1
                self.stats["retries"] = self.stats.get("retries", 0) + 1
                log.warning(
                    "translateText %s -> %s; retry %d/%d in %.1fs",
                    target_google,
                    _describe(exc),
                    attempt,
                    self.max_retries,
                    wait,
                )
                self._sleep(wait)

    def translate_variants(
        self, variants: Mapping[str, str], target: str
    ) -> dict[str, Translation]:
        lang = language(target)
        self.stats = {"requests": 0, "retries": 0, "batches": 0, "failed_batches": 0}
        out: dict[str, Translation] = {}
        if not variants:
            return out
        # a configuration problem (no credentials) is an error of the run, not of the items
        self.client()
        items = [(vid, protect(src)) for vid, src in variants.items()]
        for batch in batches(items, self.batch_size, self.max_chars):
            self.stats["batches"] += 1
            try:
                replies = self._translate_batch([content for _, content in batch], lang.google)
                if len(replies) != len(batch):
                    raise ValueError(f"{len(replies)} translations for {len(batch)} contents")
            except (*BATCH_ERRORS, ValueError) as exc:
                self.stats["failed_batches"] += 1
                reason = "bad_response" if isinstance(exc, ValueError) else _reason(exc)
                log.warning(
                    "translateText %s: batch of %d failed: %s",
                    lang.google,
                    len(batch),
                    _describe(exc),
                )
                for vid, _ in batch:
                    out[vid] = failed(vid, lang.code, variants[vid], self.engine, f"error:{reason}")
                continue
            for (vid, _), reply in zip(batch, replies):
                out[vid] = checked(
                    vid, lang.code, variants[vid], restore(reply), self.engine, "machine"
                )
        return out
