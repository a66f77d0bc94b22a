"""Scrub secrets (API keys, tokens) out of text before it is stored, logged or cut.

:func:`scrub` replaces every occurrence of a secret, and every piece of one at least
:data:`MIN_FRAGMENT` characters long (a server or a library may have cut it), with :data:`MASK`.
Callers scrub the whole text first and truncate afterwards, so a cut can never leave a prefix of a
key behind.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["MASK", "MIN_FRAGMENT", "scrub"]

MASK = "***"
MIN_FRAGMENT = 8  #: pieces of a secret this long or longer are masked too


def _scrub_one(text: str, secret: str) -> str:
    """``text`` with every run of >= MIN_FRAGMENT characters that is a piece of ``secret``
    masked."""
    if len(secret) < MIN_FRAGMENT:
        return text.replace(secret, MASK)
    grams: dict[str, list[int]] = {}
    for j in range(len(secret) - MIN_FRAGMENT + 1):
        grams.setdefault(secret[j : j + MIN_FRAGMENT], []).append(j)
    pattern = re.compile("|".join(re.escape(g) for g in grams))
    out: list[str] = []
    pos = 0
    while (m := pattern.search(text, pos)) is not None:
        i = m.start()
        longest = 0
        for j in grams[m.group()]:
            n = MIN_FRAGMENT
            while j + n < len(secret) and i + n < len(text) and text[i + n] == secret[j + n]:
                n += 1
            longest = max(longest, n)
        out += [text[pos:i], MASK]
        pos = i + longest
    out.append(text[pos:])
    return "".join(out)


def scrub(text: str, secrets: Iterable[str | None]) -> str:
    """``text`` with every secret in ``secrets`` (empty and ``None`` ones skipped), and every piece
    of one of at least :data:`MIN_FRAGMENT` characters, replaced by :data:`MASK`."""
    for secret in secrets:
        if secret:
            text = _scrub_one(text, secret)
    return text
