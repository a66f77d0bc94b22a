"""The category lexicon: how a normalized category reads in English, and whether a question may bind
it.

The data is ``mgqa_platform/data/category_lexicon.csv`` (reviewed by hand; docs/questions.md,
"Category words"): one row per category that the KG builders can produce, with its English
``singular`` and ``plural`` as a person writes them and ``bindable`` (``true``/``false``). A
category that is not bindable (an OSM key used as a class, a mixed or mis-tagged class, street
furniture) is never the value of a category role; its singular still serves display names. A
category missing from the lexicon reads as its own words (``stop_area`` -> ``stop area``) and is not
bindable.

Both the KG stage (display names) and the question stage (roles, rendering, checks) import this
module; it imports neither.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from mgqa_platform.settings import PACKAGE_DATA

LEXICON_CSV = PACKAGE_DATA / "category_lexicon.csv"
COLUMNS = ("category", "singular", "plural", "bindable", "note")

#: English month names, January first: the one list event names and time periods use.
MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)

#: Category groups that role types and conversion share: settlements (points), roads (lines),
#: regions (polygons that partition space).
SETTLEMENT_CATEGORIES = (
    "city",
    "town",
    "village",
    "hamlet",
    "suburb",
    "neighbourhood",
    "quarter",
    "locality",
    "isolated_dwelling",
    "place",
)

ROAD_CATEGORIES = (
    "road",
    "highway",
    "primary",
    "secondary",
    "tertiary",
    "residential",
    "trunk",
    "motorway",
    "street",
)

REGION_CATEGORIES = (
    "administrative_region",
    "boundary",
    "county",
    "city_block",
    "place",
    "suburb",
    "neighbourhood",
    "island",
)

#: Administrative regions (OSM ``boundary=administrative``, KnowWhereGraph admin classes).
ADMIN_CATEGORIES = ("administrative_region", "county", "state", "country")

#: Polygons a reader knows as containing things ("in the park", "on the campus"): administrative
#: regions, settlements, parks, reserves, campuses, airports, islands. City blocks, quarters,
#: neighbourhoods, named localities and OSM's bare ``place`` / ``boundary`` classes are not.
CONTAINER_CATEGORIES = (
    *ADMIN_CATEGORIES,
    "city",
    "town",
    "village",
    "suburb",
    "island",
    "park",
    "nature_reserve",
    "forest",
    "wood",
    "university",
    "college",
    "zoo",
    "theme_park",
    "airport",
    "aerodrome",
    "military",
    "grave_yard",
    "garden",
)

#: Categories whose names do not identify the feature: tourist information boards and guideposts
#: carry the name of what they describe.
NON_IDENTIFYING_CATEGORIES = ("information",)

#: (regular expression over a lower-cased display name, the categories that name may denote): a
#: name holding the word of a kind of thing reads as that thing, so a feature of another category
#: with that name (a helipad "Hospital Moinhos de Vento") is not bound where its name must identify
#: it. Words in the languages of the KGs' areas (English, Portuguese, Spanish, Catalan, Finnish).
NAME_WORDS = (
    (
        r"\b(hospital|hospitais|clínica|clinica)\b",
        ("hospital", "clinic", "doctors", "healthcare", "health_facility", "health_center"),
    ),
    (
        r"\b(school|escola|escuela|colégio|colegio)\b",
        ("school", "building_school", "kindergarten", "college", "university"),
    ),
    (
        r"\b(university|universidade|universidad|universitat)\b",
        ("university", "building_university", "college"),
    ),
    (r"\b(church|igreja|iglesia|església|catedral)\b", ("church", "place_of_worship")),
    (r"\b(museum|museu|museo)\b", ("museum", "gallery", "attraction")),
    # generic words that name a deck or a stairway, not one feature
    (r"^(deque|escadaria|escadas)\b", ()),
)


@dataclass(frozen=True)
class Entry:
    category: str
    singular: str
    plural: str
    bindable: bool
    note: str


class LexiconError(ValueError):
    """A malformed lexicon file; the message names the file and the row."""


def parse(path: Path) -> dict[str, Entry]:
    """The entries of a lexicon CSV by category.

    Raises :class:`LexiconError` for a wrong header, a duplicate or empty category, an empty word, a
    ``bindable`` other than ``true``/``false``, or two bindable categories with the same plural (a
    question could not tell them apart)."""
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        if tuple(reader.fieldnames or ()) != COLUMNS:
            raise LexiconError(f"{path}: header must be {','.join(COLUMNS)}")
        entries: dict[str, Entry] = {}
        for line, row in enumerate(reader, start=2):
            entry = _entry(row, f"{path}:{line}")
            if entry.category in entries:
                raise LexiconError(f"{path}:{line}: duplicate category {entry.category!r}")
            entries[entry.category] = entry
    _check_plurals(entries, path)
    return entries


def _entry(row: dict[str, str], where: str) -> Entry:
    values = {k: (row.get(k) or "").strip() for k in COLUMNS}
    for column in ("category", "singular", "plural"):
        if not values[column]:
            raise LexiconError(f"{where}: empty {column}")
    if values["bindable"] not in ("true", "false"):
        raise LexiconError(
            f"{where}: bindable must be true or false, not {values['bindable']!r} "
            f"(category {values['category']!r})"
        )
    return Entry(
        values["category"],
        values["singular"],
        values["plural"],
        values["bindable"] == "true",
        values["note"],
    )


def _check_plurals(entries: dict[str, Entry], path: Path) -> None:
    seen: dict[str, str] = {}
    for e in entries.values():
        if not e.bindable:
            continue
        if e.plural in seen:
            raise LexiconError(
                f"{path}: bindable categories {seen[e.plural]!r} and {e.category!r} "
                f"share the plural {e.plural!r}"
            )
        seen[e.plural] = e.category


@lru_cache(maxsize=1)
def entries() -> dict[str, Entry]:
    """The bundled lexicon (loaded and validated once)."""
    return parse(LEXICON_CSV)


def noun(category: str) -> str:
    """The English singular of ``category``: ``fuel`` -> ``fuel station``; for a category missing
    from the lexicon, its own words (``stop_area`` -> ``stop area``)."""
    entry = entries().get(category)
    return entry.singular if entry else category.replace("_", " ").strip()


def label(category: str) -> str:
    """The English plural of a lexicon category: ``fast_food`` -> ``fast-food restaurants``.

    Raises ``KeyError`` for a category missing from the lexicon: no question renders such a
    category."""
    try:
        return entries()[category].plural
    except KeyError:
        raise KeyError(f"category {category!r} is not in {LEXICON_CSV.name}") from None


def bindable(category: str) -> bool:
    """Whether a category role may bind ``category`` (False when it is missing from the lexicon)."""
    entry = entries().get(category)
    return bool(entry and entry.bindable)


def bindable_categories() -> tuple[str, ...]:
    """Every bindable category, sorted."""
    return tuple(sorted(c for c, e in entries().items() if e.bindable))
