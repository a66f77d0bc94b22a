"""The OpenAI-compatible client against a real local HTTP server (tests/fake_openai.py)."""

from __future__ import annotations

import hashlib
import json
import socket
import threading

import pytest

from mgqa_platform.llm import ChatClient, ReplyError, TransportError, parse_json_content
from tests.fake_openai import FakeOpenAI, Reply

SCHEMA = {
    "type": "object",
    "properties": {"answer": {"type": "number"}},
    "required": ["answer"],
    "additionalProperties": False,
}
MSGS = [{"role": "user", "content": "How far?"}]
KEY = "sk-test-secret-123"


def client(srv: FakeOpenAI, **kw) -> ChatClient:
    sleeps: list[float] = []
    kw.setdefault("sleep", sleeps.append)
    c = ChatClient(srv.base_url, "fake-model", **kw)
    c.sleeps = sleeps  # type: ignore[attr-defined]
    return c


def test_schema_sent_auth_header_and_reply_validated():
    with FakeOpenAI() as srv:
        srv.push(
            Reply(
                '{"answer": 12.5}',
                usage={"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10},
            )
        )
        with client(srv, api_key=KEY) as c:
            obj, res = c.complete_json(MSGS, SCHEMA)
        assert obj == {"answer": 12.5}
        assert res.usage == {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}
        assert (res.attempts, res.model, res.finish_reason) == (1, "fake-model", "stop")
        (req,) = srv.requests
        assert req.path == "/v1/chat/completions"
        assert req.headers["authorization"] == f"Bearer {KEY}"
        assert req.body["model"] == "fake-model" and req.body["temperature"] == 0.0
        assert req.body["messages"] == MSGS
        assert req.body["response_format"] == {
            "type": "json_schema",
            "json_schema": {"name": "answer", "schema": SCHEMA, "strict": True},
        }


def test_no_key_no_header_and_key_never_shown():
    with FakeOpenAI() as srv:
        c = client(srv)
        c.complete(MSGS)
        assert "authorization" not in srv.requests[0].headers
        assert "response_format" not in srv.requests[0].body
        k = client(srv, api_key=KEY, max_retries=0)
        assert KEY not in repr(k) and KEY not in json.dumps(k.describe())
        srv.push(Reply(status=401, body=f'{{"error": "bad key {KEY}"}}'.encode()))
        with pytest.raises(TransportError) as ei:
            k.complete(MSGS)
        assert (
            KEY not in str(ei.value) and KEY not in repr(ei.value.args) and ei.value.status == 401
        )


def test_retries_on_429_and_500_then_succeeds():
    with FakeOpenAI() as srv:
        srv.push(
            Reply(status=429, headers={"Retry-After": "2"}),
            Reply(status=500),
            Reply('{"answer": 1}'),
        )
        c = client(srv, backoff_s=1.0, max_backoff_s=30)
        obj, res = c.complete_json(MSGS, SCHEMA)
        assert obj == {"answer": 1} and res.attempts == 3 and len(srv.requests) == 3
        assert c.sleeps[0] == 2.0  # Retry-After honoured
        assert (
            1.0 <= c.sleeps[1] <= 2.0
        )  # exponential backoff (2nd retry: base 2 s) with jitter in [0.5, 1]
        body_key = hashlib.sha256(srv.requests[0].raw).hexdigest()[:16]
        assert c.sleeps[1] == c.backoff_delay(2, body_key)  # deterministic jitter


def test_gives_up_after_max_retries():
    with FakeOpenAI() as srv:
        srv.push(*[Reply(status=503)] * 5)
        c = client(srv, max_retries=2, backoff_s=0.5, max_backoff_s=0.75)
        with pytest.raises(TransportError) as ei:
            c.complete(MSGS)
        assert (ei.value.status, ei.value.attempts, ei.value.reason) == (503, 3, "http_503")
        assert len(srv.requests) == 3 and len(c.sleeps) == 2 and all(s <= 0.75 for s in c.sleeps)


def test_400_is_not_retried():
    with FakeOpenAI() as srv:
        srv.push(Reply(status=400), Reply('{"answer": 1}'))
        c = client(srv)
        with pytest.raises(TransportError) as ei:
            c.complete(MSGS, SCHEMA)
        assert (
            ei.value.status == 400
            and ei.value.attempts == 1
            and len(srv.requests) == 1
            and c.sleeps == []
        )


def test_timeouts_and_broken_envelopes_are_retried():
    with FakeOpenAI() as srv:
        srv.push(
            Reply('{"answer": 1}', delay=0.6),
            Reply(body=b"<html>gateway</html>"),
            Reply('{"answer": 2}'),
        )
        c = client(srv, timeout_s=0.2)
        obj, res = c.complete_json(MSGS, SCHEMA)
        assert obj == {"answer": 2} and res.attempts == 3


def test_connection_errors_are_retried_then_reported():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again below: nothing listens there
    sleeps: list[float] = []
    c = ChatClient(f"http://127.0.0.1:{port}/v1", "m", max_retries=2, sleep=sleeps.append)
    with pytest.raises(TransportError) as ei:
        c.complete(MSGS)
    assert ei.value.reason == "connect_error" and ei.value.status is None and ei.value.attempts == 3
    assert len(sleeps) == 2


def test_strict_reply_parsing():
    assert parse_json_content('```json\n{"answer": 1}\n```') == {"answer": 1}
    assert parse_json_content('  ```\n{"answer": 1}\n```  ') == {"answer": 1}
    for bad in (
        'The answer is {"answer": 1}',
        '{"answer": 1} hope this helps',
        "",
        '```json\n{"a": 1}\n``` x',
    ):
        with pytest.raises(ReplyError):
            parse_json_content(bad)
    with FakeOpenAI() as srv:
        srv.push('Sure! {"answer": 3}', '{"answer": "three"}', '{"answer": "three"}')
        c = client(srv)
        with pytest.raises(ReplyError) as e1:
            c.complete_json(MSGS, SCHEMA)
        assert e1.value.reason == "not_json" and e1.value.raw == 'Sure! {"answer": 3}'
        assert e1.value.result.usage["total_tokens"] == 15  # tokens of a bad reply still count
        with pytest.raises(ReplyError) as e2:
            c.complete_json(MSGS, SCHEMA)
        assert e2.value.reason == "schema_violation" and "answer" in e2.value.detail
        assert c.complete_json(MSGS, SCHEMA, validate=False)[0] == {"answer": "three"}


def test_truncated_reply_is_reported_as_such():
    with FakeOpenAI() as srv:
        srv.push(Reply('{"answer": ', finish_reason="length"))
        with pytest.raises(ReplyError) as ei:
            client(srv).complete_json(MSGS, SCHEMA)
        assert ei.value.reason == "truncated"


def test_one_client_shared_by_threads():
    with FakeOpenAI(
        handler=lambda req: json.dumps({"answer": len(req.body["messages"][0]["content"])}),
        delay=0.05,
    ) as srv:
        c = client(srv)
        results: dict[int, float] = {}

        def call(i: int) -> None:
            results[i] = c.complete_json([{"role": "user", "content": "x" * i}], SCHEMA)[0][
                "answer"
            ]

        threads = [threading.Thread(target=call, args=(i,)) for i in range(1, 9)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert results == {i: i for i in range(1, 9)} and srv.max_in_flight >= 2


def test_deadline_cuts_a_server_that_holds_back_its_headers():
    import time

    with FakeOpenAI(lambda req: Reply(content='{"a": 1}', delay=6)) as srv:
        c = client(srv, timeout_s=30, deadline_s=1, max_retries=0)
        t0 = time.monotonic()
        with pytest.raises(TransportError) as err:
            c.complete([{"role": "user", "content": "x"}])
        took = time.monotonic() - t0
    assert err.value.reason == "deadline" and err.value.attempts == 1
    assert took < 4, (
        took
    )  # the per-read timeout (30 s) and the server's delay (6 s) never came into play


def test_a_response_over_the_size_cap_is_not_read():
    big = b'{"choices": [{"message": {"content": "' + b"x" * 100_000 + b'"}}]}'
    with FakeOpenAI(lambda req: Reply(body=big)) as srv:
        with pytest.raises(TransportError) as err:
            client(srv, max_response_bytes=10_000).complete([{"role": "user", "content": "x"}])
        assert err.value.reason == "too_large" and len(srv.requests) == 1
