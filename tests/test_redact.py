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
