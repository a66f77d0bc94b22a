"""The 17 benchmark languages (paper Table 3), keyed by ISO 639-3, with the codes other systems
need.

``babel`` is the CLDR locale used to format numbers and dates; ``google`` the Cloud Translation
language code; ``osm`` the ``name:<xx>`` subtag of OSM labels (the warehouse's
``entity_labels.lang`` already holds ISO 639-3); ``scripts`` the Unicode script names a label in
that language is written in (matched against ``unicodedata.name`` prefixes, e.g. ``CYRILLIC``).
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass


@dataclass(frozen=True)
class Language:
    code: str  # ISO 639-3
    name: str
    babel: str
    google: str
    osm: str
    scripts: tuple[str, ...]


LANGUAGES: dict[str, Language] = {
    lang.code: lang
    for lang in (
        Language("eng", "English", "en", "en", "en", ("LATIN",)),
        Language("fra", "French", "fr", "fr", "fr", ("LATIN",)),
        Language("ita", "Italian", "it", "it", "it", ("LATIN",)),
        Language("por", "Portuguese", "pt", "pt", "pt", ("LATIN",)),
        Language("ron", "Romanian", "ro", "ro", "ro", ("LATIN",)),
        Language("spa", "Spanish", "es", "es", "es", ("LATIN",)),
        Language("bul", "Bulgarian", "bg", "bg", "bg", ("CYRILLIC",)),
        Language("rus", "Russian", "ru", "ru", "ru", ("CYRILLIC",)),
        Language("deu", "German", "de", "de", "de", ("LATIN",)),
        Language("urd", "Urdu", "ur", "ur", "ur", ("ARABIC",)),
        Language("sqi", "Albanian", "sq", "sq", "sq", ("LATIN",)),
        Language("ell", "Greek", "el", "el", "el", ("GREEK",)),
        Language(
            "jpn",
            "Japanese",
            "ja",
            "ja",
            "ja",
            ("CJK", "HIRAGANA", "KATAKANA", "KATAKANA-HIRAGANA"),
        ),
        Language("kat", "Georgian", "ka", "ka", "ka", ("GEORGIAN",)),
        Language("tur", "Turkish", "tr", "tr", "tr", ("LATIN",)),
        Language("vie", "Vietnamese", "vi", "vi", "vi", ("LATIN",)),
        Language("zho", "Chinese (Simplified)", "zh_Hans", "zh-CN", "zh", ("CJK",)),
    )
}
CODES: tuple[str, ...] = tuple(LANGUAGES)  #: the 17 partition keys, English first
SOURCE = "eng"
TARGETS: tuple[str, ...] = tuple(c for c in CODES if c != SOURCE)  #: the 16 target languages


def language(code: str) -> Language:
    try:
        return LANGUAGES[code]
    except KeyError:
        raise ValueError(f"unknown language {code!r}; expected one of {', '.join(CODES)}") from None


def scripts_of(text: str) -> set[str]:
    """The Unicode scripts of the letters in ``text`` (first word of each letter's Unicode name:
    ``LATIN``, ``CYRILLIC``, ``CJK``, ``HIRAGANA``...); digits, punctuation and spaces are
    ignored."""
    out = set()
    for ch in text:
        if unicodedata.category(ch).startswith("L"):
            out.add(unicodedata.name(ch, "UNKNOWN").split(" ")[0])
    return out


def in_script(text: str, code: str) -> bool:
    """True when every letter of ``text`` is in one of the scripts of language ``code``."""
    found = scripts_of(text)
    return bool(found) and found <= set(language(code).scripts)
