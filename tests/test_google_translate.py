"""GoogleTranslator: the real Cloud Translation v3 client (REST transport) over real HTTP against a
local fake."""

from __future__ import annotations

import json
import socket

import pytest
from fake_google_translate import (
    PATH,
    FakeGoogleTranslate,
    Reply,
    dropping,
    duplicating,
    fake_translate,
    translating_inside,
)

from mgqa_platform.multilingual.google_translate import GoogleTranslator, batches, protect, restore
from mgqa_platform.multilingual.placeholders import placeholders

DIST = "What is the distance between {entity_A} and {entity_B}?"
COUNT = "How many {category_A} are within {value} km of {entity_A}?"
SPECIAL = """Is {entity_A}'s "name" < 5 & > 2 or O'Hara's?"""


def fr(s: str) -> str:
    return f"[fr]{s}[/fr]"


@pytest.fixture
def srv():
    with FakeGoogleTranslate() as s:
        yield s


def make(srv, sleeps: list | None = None, **kw) -> GoogleTranslator:
    sl = sleeps if sleeps is not None else []
    return GoogleTranslator("test-project", endpoint=srv.endpoint, sleep=sl.append, **kw)


# -- pure helpers ----------------------------------------------------------------------------------


def test_protect_and_restore():
    html_ = protect(SPECIAL)
    assert html_ == (
        'Is <span translate="no">{entity_A}</span>&#x27;s &quot;name&quot; &lt; 5 &amp; &gt; 2 '
        "or O&#x27;Hara&#x27;s?"
    )
    assert restore(html_) == SPECIAL
    # Google's own escaping and attribute quoting come back right too
    assert (
        restore("Est-ce <SPAN translate='no'>{x}</SPAN> l&#39;&quot;a&quot; &amp; b")
        == 'Est-ce {x} l\'"a" & b'
    )
    assert restore(fake_translate(protect(DIST), "fr")) == (
        fr("What is the distance between ") + "{entity_A}" + fr(" and ") + "{entity_B}" + fr("?")
    )


def test_batches_by_count_and_chars():
    items = [(str(i), "x" * 10) for i in range(7)]
    assert [len(b) for b in batches(items, 3, 10_000)] == [3, 3, 1]
    assert [len(b) for b in batches(items, 100, 25)] == [2, 2, 2, 1]
    assert [len(b) for b in batches([("a", "x" * 50), ("b", "y")], 100, 25)] == [
        1,
        1,
    ]  # too long goes alone
    assert [k for b in batches(items, 3, 25) for k, _ in b] == [k for k, _ in items]  # order kept


# -- against the fake ------------------------------------------------------------------------------


def test_placeholders_protected_and_restored(srv):
    gt = make(srv)
    assert gt.engine == "google:default"
    out = gt.translate_variants({"v1": DIST, "v2": COUNT}, "fra")
    assert set(out) == {"v1", "v2"}
    t = out["v1"]
    assert (t.status, t.problems, t.engine, t.lang, t.source) == (
        "machine",
        (),
        "google:default",
        "fra",
        DIST,
    )
    assert t.text == fr("What is the distance between ") + "{entity_A}" + fr(
        " and "
    ) + "{entity_B}" + fr("?")
    assert placeholders(out["v2"].text) == placeholders(COUNT) and out["v2"].status == "machine"

    (req,) = srv.requests
    assert PATH.match(req.path).group("project", "location") == ("test-project", "global")
    b = req.body
    assert (b["mimeType"], b["sourceLanguageCode"], b["targetLanguageCode"]) == (
        "text/html",
        "en",
        "fr",
    )
    assert "model" not in b
    assert b["contents"][0] == (
        'What is the distance between <span translate="no">{entity_A}</span> and '
        '<span translate="no">{entity_B}</span>?'
    )
    assert "authorization" not in req.headers  # http endpoint: anonymous credentials


def test_html_specials_round_trip_and_google_codes(srv):
    out = make(srv).translate_variants({"s": SPECIAL}, "zho")
    t = out["s"]
    assert t.status == "machine" and t.lang == "zho"
    assert t.text == "[zh-CN]Is [/zh-CN]{entity_A}[zh-CN]'s \"name\" < 5 & > 2 or O'Hara's?[/zh-CN]"
    sent = srv.requests[0].body
    assert sent["targetLanguageCode"] == "zh-CN"
    assert "<" not in sent["contents"][0].replace('<span translate="no">', "").replace(
        "</span>", ""
    )


def test_model_short_and_full_names(srv):
    gt = make(srv, model="general/translation-llm", location="us-central1")
    assert gt.engine == "google:general/translation-llm"
    gt.translate_variants({"v": DIST}, "deu")
    b = srv.requests[-1]
    assert (
        b.body["model"]
        == "projects/test-project/locations/us-central1/models/general/translation-llm"
    )
    assert b.path == "/v3/projects/test-project/locations/us-central1:translateText"
    full = "projects/other/locations/global/models/general/nmt"
    make(srv, model=full).translate_variants({"v": DIST}, "deu")
    assert srv.requests[-1].body["model"] == full


def test_batching_by_count_and_chars(srv):
    variants = {f"v{i:02d}": f"Sentence number {i} about {{entity_A}}." for i in range(7)}
    out = make(srv, batch_size=3).translate_variants(variants, "ita")
    assert [len(r.contents) for r in srv.requests] == [3, 3, 1]
    assert all(t.status == "machine" for t in out.values()) and set(out) == set(variants)
    assert out["v05"].text == "[it]Sentence number 5 about [/it]{entity_A}[it].[/it]"

    srv.requests.clear()
    one = len(protect(variants["v00"]))
    gt = make(srv, max_chars=2 * one + 1)
    out = gt.translate_variants(variants, "ita")
    assert [len(r.contents) for r in srv.requests] == [2, 2, 2, 1]
    assert all(sum(len(c) for c in r.contents) <= 2 * one + 1 for r in srv.requests)
    assert gt.stats["batches"] == 4 and gt.stats["failed_batches"] == 0
    assert [c for r in srv.requests for c in r.contents] == [protect(v) for v in variants.values()]


def test_retry_then_success(srv):
    sleeps: list = []
    srv.push(Reply(status=429), Reply(status=503), Reply(status=500))
    gt = make(srv, sleeps, initial_backoff_s=0.5)
    out = gt.translate_variants({"v": DIST}, "fra")
    assert out["v"].status == "machine" and not out["v"].problems
    assert len(srv.requests) == 4 and sleeps == [0.5, 1.0, 2.0]
    assert gt.stats["retries"] == 3 and gt.stats["requests"] == 4


def test_give_up_fails_the_batch_not_the_run(srv):
    sleeps: list = []
    srv.push(*[Reply(status=503)] * 3)  # the first batch: 1 try + 2 retries, all 503
    gt = make(srv, sleeps, batch_size=2, max_retries=2, max_backoff_s=1.5)
    out = gt.translate_variants({"a": DIST, "b": COUNT, "c": DIST}, "fra")
    assert [out[k].status for k in "abc"] == ["failed", "failed", "machine"]
    assert out["a"].problems == ("error:ServiceUnavailable",) and out["a"].text is None
    assert out["a"].needs_post_edit
    assert sleeps == [1.0, 1.5]  # capped backoff
    assert len(srv.requests) == 4 and gt.stats["failed_batches"] == 1


def test_non_retryable_error_is_not_retried(srv):
    sleeps: list = []
    srv.push(Reply(status=400))
    out = make(srv, sleeps).translate_variants({"v": DIST}, "fra")
    assert out["v"].status == "failed" and out["v"].problems[0].startswith("error:")
    assert out["v"].problems[0] in ("error:BadRequest", "error:InvalidArgument")
    assert sleeps == [] and len(srv.requests) == 1


def test_connection_refused_after_retries():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there now
    sleeps: list = []
    gt = GoogleTranslator(
        "p", endpoint=f"http://127.0.0.1:{port}", max_retries=2, sleep=sleeps.append
    )
    out = gt.translate_variants({"v": DIST}, "fra")
    assert out["v"].status == "failed" and out["v"].problems == ("error:ConnectionError",)
    assert sleeps == [1.0, 2.0]


def test_bad_response_count(srv):
    srv.push(Reply(body=json.dumps({"translations": [{"translatedText": "x"}]}).encode()))
    out = make(srv).translate_variants({"a": DIST, "b": DIST}, "fra")
    assert all(t.status == "failed" and t.problems == ("error:bad_response",) for t in out.values())


@pytest.mark.parametrize(
    "transform, codes",
    [
        (dropping("entity_B"), ("missing:{entity_B}",)),
        (duplicating("entity_A"), ("duplicated:{entity_A}",)),
        (
            translating_inside("entity_A", "entite_A"),
            ("missing:{entity_A}", "unexpected:{entite_A}"),
        ),
        (
            lambda c, t: fake_translate(c, t).replace("{entity_B}", "{entity_B"),
            ("missing:{entity_B}", "unbalanced_braces"),
        ),
        (lambda c, t: "", ("empty",)),
    ],
)
def test_broken_placeholders_fail_with_codes(srv, transform, codes):
    srv.push(Reply(transform=transform))
    out = make(srv).translate_variants({"v": DIST, "n": "No slots here & there."}, "fra")
    t = out["v"]
    assert t.status == "failed" and t.problems == codes and t.needs_post_edit
    if codes != ("empty",):
        assert t.text and t.text.startswith("[fr]")  # kept for the post-editor
        assert out["n"].status == "machine"  # the other item of the batch is fine


def test_repr_and_errors_hold_no_secrets(srv, monkeypatch, tmp_path):
    sentinel = "SECRET-TOKEN-123"

    class Creds:  # never used: the client is built only on demand
        token = sentinel

        def __repr__(self):
            return sentinel

    gt = GoogleTranslator("p", credentials=Creds())
    assert sentinel not in repr(gt) and "p" in repr(gt)
    with pytest.raises(ValueError, match="project"):
        GoogleTranslator("")
    assert (
        GoogleTranslator("p").translate_variants({}, "fra") == {}
    )  # nothing to do: no client built

    # production path (no endpoint): Application Default Credentials; a broken setup is a run error
    from google.auth.exceptions import DefaultCredentialsError

    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(tmp_path / "missing.json"))
    with pytest.raises(DefaultCredentialsError):
        GoogleTranslator("p").translate_variants({"v": DIST}, "fra")
