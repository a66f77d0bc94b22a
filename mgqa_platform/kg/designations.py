"""How a local designates an administrative region: "the parish of La Massana", "the commune of
L'Hospitalet-près-l'Andorre", "Santa Barbara County".

A designation is a pattern around ``{name}``. Its source, in this order (:func:`english_pattern`):

1. the region's own OSM tags ``designation``, ``border_type``, ``admin_title`` (their value is an
   English word, "the county of {name}"); English only, other languages show the name alone;
2. the reviewed per-country table ``mgqa_platform/data/admin_designations.csv`` by the region's
   country (ISO 3166-1 alpha-2, from its ``ISO3166-2`` / ``ISO3166-1`` tags) and ``admin_level``,
   with the pattern in each of the 17 languages (an empty cell: the name alone).

:mod:`mgqa_platform.kg.names` applies an English pattern (:func:`names.designated_name`);
:mod:`mgqa_platform.multilingual.names` finds the row of an English display name again
(:func:`row_of_display`) and renders it in the language (:func:`localized`).
"""

from __future__ import annotations

import csv
import functools
import re
from collections.abc import Mapping
from pathlib import Path

DESIGNATIONS_CSV = Path(__file__).resolve().parents[1] / "data" / "admin_designations.csv"
#: OSM tags whose value is the region's own designation word, first present wins.
DESIGNATION_TAGS = ("designation", "border_type", "admin_title")
#: OSM tags that give the region's country (their first two letters: ISO 3166-1 alpha-2).
COUNTRY_TAGS = ("ISO3166-1", "ISO3166-1:alpha2", "ISO3166-2", "country_code", "is_in:country_code")
#: Every tag the designation reads.
TAGS = DESIGNATION_TAGS + COUNTRY_TAGS
_WORD = re.compile(r"^[A-Za-z][A-Za-z ]{1,30}$")

Table = Mapping[tuple[str, int], Mapping[str, str]]


@functools.cache
def load(path: Path = DESIGNATIONS_CSV) -> dict[tuple[str, int], dict[str, str]]:
    """(ISO 3166-1 alpha-2, admin_level) -> language (ISO 639-3) -> pattern around ``{name}``; a
    language with an empty cell is left out."""
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    return {
        (r["iso2"], int(r["admin_level"])): {
            lang: cell for lang, cell in r.items() if lang not in ("iso2", "admin_level") and cell
        }
        for r in rows
    }


def country_of(tags: Mapping[str, str]) -> str | None:
    """ISO 3166-1 alpha-2 code of a region from its tags ("AD-04" -> "AD"), None without one."""
    for tag in COUNTRY_TAGS:
        code = (tags.get(tag) or "").strip()
        if len(code) >= 2 and code[:2].isalpha() and code[:2].isupper():
            return code[:2]
    return None


def _tag_word(tags: Mapping[str, str]) -> str | None:
    """The region's own designation word from its tags ("border_type=county" -> "county")."""
    for tag in DESIGNATION_TAGS:
        word = (tags.get(tag) or "").replace("_", " ").strip().lower()
        if _WORD.match(word):
            return word
    return None


def english_pattern(
    tags: Mapping[str, str], admin_level: int | None, table: Table | None = None
) -> str | None:
    """The English designation pattern of a region: from its own tags ("the county of {name}"),
    else the table's row of its country and ``admin_level``; None when neither has one."""
    word = _tag_word(tags)
    if word:
        return f"the {word} of {{name}}"
    country = country_of(tags)
    if country is None or admin_level is None:
        return None
    row = (load() if table is None else table).get((country, int(admin_level)))
    return row.get("eng") if row else None


def row_of_display(name: str, display_name: str, table: Table | None = None) -> Mapping | None:
    """The table row whose English pattern around ``name`` is ``display_name``; None when none
    is (a tag-derived designation, or a display name without a designation)."""
    for row in (load() if table is None else table).values():
        pattern = row.get("eng")
        if pattern and pattern.format(name=name) == display_name:
            return row
    return None


def localized(row: Mapping[str, str], name: str, lang: str) -> str:
    """The region's designation around ``name`` in ``lang``, the name alone where the row has no
    pattern for the language."""
    pattern = row.get(lang)
    if not pattern:
        return name
    if lang == "fra" and name[:1] in _FRENCH_VOWELS:  # "la paroisse d'Encamp"
        pattern = pattern.replace("de {name}", "d'{name}")
    return pattern.format(name=name)


#: Initials before which French "de" elides to "d'" (a mute h is left alone: it cannot be told
#: from an aspirated one by its spelling).
_FRENCH_VOWELS = frozenset("AEIOUYÀÂÄÉÈÊËÎÏÔÖÙÛÜaeiouyàâäéèêëîïôöùûü")
