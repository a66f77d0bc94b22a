"""Secret scrubbing: whole secrets and every piece of 8+ characters, before any cut."""

from __future__ import annotations

from mgqa_platform.llm import ChatClient
from mgqa_platform.redact import MASK, scrub

KEY = "sk-live-0123456789abcdefXYZ"


def test_whole_secret_and_pieces_are_masked():
    assert scrub(f"key={KEY};", [KEY]) == f"key={MASK};"
    assert scrub(f"cut: {KEY[:11]}", [KEY]) == f"cut: {MASK}"  # a prefix a server cut
    assert scrub(f"tail {KEY[-9:]} end", [KEY]) == f"tail {MASK} end"  # a suffix
    assert scrub(f"{KEY}{KEY}", [KEY]) == MASK + MASK
    assert scrub(f"a {KEY[:7]} b", [KEY]) == f"a {KEY[:7]} b"  # 7 characters say nothing
    assert scrub("nothing here", [KEY, None, ""]) == "nothing here"
    assert scrub("pin 1234 and 1234", ["1234"]) == f"pin {MASK} and {MASK}"


def test_repeated_grams_take_the_longest_piece():
    secret = "abcdefgh-abcdefgh-XYZ12345"
    text = "x abcdefgh-XYZ12345 y"
    assert scrub(text, [secret]) == f"x {MASK} y"


def test_client_scrubs_key_and_extra_secrets_but_never_shows_them():
    client = ChatClient("http://127.0.0.1:9/v1", "m", api_key=KEY, secrets=["tok-extra-99887766"])
    text = f"{KEY} and tok-extra-99887766 and {KEY[:12]}"
    assert client.scrub(text) == f"{MASK} and {MASK} and {MASK}"
    assert KEY not in repr(client) and KEY not in str(client.describe())


def test_post_edit_members_store_no_piece_of_an_echoed_key():
    """The ensemble's proposals (stored in the edit log) quote errors cut to 300 characters:
    scrubbed first."""
    from mgqa_platform.multilingual.ensemble import LLMMember
    from tests.fake_openai import FakeOpenAI, Reply

    question = {"lang": "fra", "text_marked": "Quelle est la distance ?"}
    pad = "p" * 270

    def echo(req):
        key = req.headers["authorization"].removeprefix("Bearer ")
        if len(echo.calls) == 0:
            echo.calls.append(1)
            return Reply(status=403, body=f"{pad} key {key}".encode())
        return f'{{"edits": [{{"op": "{key}", "original": "a", "fix": "b"}}]}}'

    echo.calls = []
    with FakeOpenAI(echo) as srv:
        client = ChatClient(srv.base_url, "m", api_key=KEY, sleep=lambda s: None)
        details = [LLMMember("m", client).propose(question).detail for _ in range(2)]
    assert details[0].startswith("http_403") and details[1].startswith("schema_violation"), details
    assert MASK in details[1], details  # the reply's value quoted in the schema error
    for d in details:
        for n in range(8, len(KEY) + 1):
            assert KEY[:n] not in d, (n, d)


def test_a_key_in_the_endpoint_url_is_not_recorded_in_run_json(tmp_path):
    from mgqa_platform.evaluation import runner

    client = ChatClient(f"http://127.0.0.1:9/v1?api-key={KEY}", "m", api_key=KEY, max_retries=0)
    question = {"question_id": "q1", "text": "How far?", "answer_format": "distance", "gold": "{}"}
    runner.run([question], client, "T1", tmp_path, system_name="s")
    assert KEY[:8] not in (tmp_path / runner.RUN_CONFIG).read_text()
    assert KEY[:8] not in (tmp_path / runner.PREDICTIONS).read_text()
