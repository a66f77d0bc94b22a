"""OSM map features: which tags make a feature, and which classes and category they map to.

Shared by the WorldKG and OSMH3KG builders and by KG conversion, so that the three agree on classes.
The table itself is data: ``mgqa_platform/data/osm_map_features.csv``.
"""

from __future__ import annotations

import csv
import functools
import re
from dataclasses import dataclass

from mgqa_platform.settings import PACKAGE_DATA

#: Main keys in priority order: the first one present decides an entity's category.
MAIN_KEYS: tuple[str, ...] = (
    "amenity",
    "shop",
    "tourism",
    "leisure",
    "historic",
    "natural",
    "place",
    "aeroway",
    "railway",
    "highway",
    "boundary",
    "waterway",
    "landuse",
    "office",
    "craft",
    "emergency",
    "healthcare",
    "man_made",
    "military",
    "power",
    "public_transport",
    "route",
    "barrier",
    "building",
)

#: OSM ``name:xx`` language subtags (ISO 639-1 or -3) -> ISO 639-3 codes used across the platform.
ISO639_1_TO_3: dict[str, str] = {
    "en": "eng",
    "fr": "fra",
    "it": "ita",
    "pt": "por",
    "ro": "ron",
    "es": "spa",
    "bg": "bul",
    "ru": "rus",
    "de": "deu",
    "ur": "urd",
    "sq": "sqi",
    "el": "ell",
    "ja": "jpn",
    "ka": "kat",
    "tr": "tur",
    "vi": "vie",
    "zh": "zho",
    "fi": "fin",
    "sv": "swe",
    "ar": "ara",
    "sw": "swa",
    "mg": "mlg",
    "ny": "nya",
    "nl": "nld",
    "pl": "pol",
    "uk": "ukr",
    "ko": "kor",
    "he": "heb",
    "hi": "hin",
    "fa": "fas",
    "et": "est",
    "no": "nor",
    "da": "dan",
    "hu": "hun",
    "cs": "ces",
    "se": "sme",
    "so": "som",
    "am": "amh",
    "rw": "kin",
    "lt": "lit",
    "lv": "lav",
    "be": "bel",
}
ISO639_3 = set(ISO639_1_TO_3.values())


@dataclass(frozen=True)
class FeatureClass:
    key: str
    value: str
    key_class: str
    value_class: str
    category: str


@functools.cache
def map_features() -> dict[tuple[str, str], FeatureClass]:
    with open(PACKAGE_DATA / "osm_map_features.csv", newline="", encoding="utf-8") as f:
        return {(r["key"], r["value"]): FeatureClass(**r) for r in csv.DictReader(f)}


@functools.cache
def class_index() -> dict[str, FeatureClass]:
    """value_class -> feature (value classes are unique by construction of the table)."""
    return {fc.value_class: fc for fc in map_features().values()}


def camel(s: str) -> str:
    """``'fast_food'`` -> ``'FastFood'``; ``'addr:street'`` -> ``'AddrStreet'``."""
    return "".join(p[:1].upper() + p[1:] for p in re.split(r"[:_\-\s]+", s) if p)


def key_class(key: str) -> str:
    return camel(key)


def tag_property(key: str) -> str | None:
    """OSM tag key -> WorldKG property local name (lower camel case), or None if not representable.

    ``'name:en'`` -> ``'nameEn'``, ``'alt_name'`` -> ``'altName'``, ``'addr:street'`` ->
    ``'addrStreet'``.
    """
    c = camel(key)
    if not c or not re.fullmatch(r"[A-Za-z][A-Za-z0-9]*", c):
        return None
    return c[0].lower() + c[1:]


def classify(tags: dict[str, str]) -> list[tuple[str, str]]:
    """Classes of an OSM element as ``(class, superclass)`` pairs, most important first.

    A tag ``key=value`` with ``key`` a main key yields the value class (superclass: key class) when
    the pair is in the map-features table, otherwise just the key class (superclass: empty string).
    Returns an empty list when the element has no main-key tag: it is not a map feature.
    """
    out: list[tuple[str, str]] = []
    table = map_features()
    for k in MAIN_KEYS:
        v = tags.get(k)
        if v is None:
            continue
        fc = table.get((k, v))
        out.append((fc.value_class, fc.key_class) if fc else (key_class(k), ""))
    return out


def name_language(tag_key: str) -> str | None:
    """``'name:en'`` -> ``'eng'``; ``'name:zh-Hans'`` -> ``'zho'``; unknown subtags -> None."""
    if not tag_key.startswith("name:"):
        return None
    sub = tag_key[5:].split("-")[0].split("_")[0].lower()
    if len(sub) == 2:
        return ISO639_1_TO_3.get(sub)
    if len(sub) == 3 and sub in ISO639_3:
        return sub
    return None
