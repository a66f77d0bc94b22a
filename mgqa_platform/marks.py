"""Entity marks in ``text_marked``: each inserted entity name wrapped in ``{...}``.

A span is ``{[^{}]*}``: the post-edit ensemble, its checks and the detectors find names that way. A
name that itself holds a brace (an OSM name such as ``Bar {Zero}``) would break its span and look
like an unfilled template slot, so :func:`mark` writes its braces as the private-use characters
U+E000 and U+E001 inside the span, and :func:`unmark` turns them back: ``text`` shows the name
literally.
"""

from __future__ import annotations

import re

#: One entity span of a marked text.
SPAN = re.compile(r"\{[^{}]*\}")
_ESCAPE = str.maketrans({"{": "\ue000", "}": "\ue001"})
_UNESCAPE = str.maketrans({"\ue000": "{", "\ue001": "}"})


def mark(name: str) -> str:
    """``name`` as an entity span: ``"Bar {Zero}"`` -> ``"{Bar \\ue000Zero\\ue001}"``."""
    return "{" + name.translate(_ESCAPE) + "}"


def unescape_names(text: str) -> str:
    """``text`` with the escaped braces of :func:`mark` written as braces again."""
    return text.translate(_UNESCAPE)


def unmark(text_marked: str) -> str:
    """The final text: the marked text without the braces of its spans, each name as written."""
    return unescape_names(SPAN.sub(lambda m: m.group(0)[1:-1], text_marked))
