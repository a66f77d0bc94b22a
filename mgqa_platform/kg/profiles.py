"""Per-KG profiles: how the triples of one entity subject become an entity draft.

A profile says which subjects are entities, how their geometry is linked, which extra facts are
gathered in SQL (KnowWhereGraph time and SOSA observations) and how, in Python, the grouped triples
become a :class:`Draft` (or a :class:`Rejected` with a quarantine reason). Nothing here touches the
warehouse; :mod:`mgqa_platform.kg.convert` runs the SQL and writes the tables.
"""

from __future__ import annotations

import csv
import functools
import re
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field

from mgqa_platform.kg import osm_features, vocab
from mgqa_platform.settings import PACKAGE_DATA


@dataclass
class Draft:
    local_id: str
    iri: str
    name: str
    category: str
    types: list[str]
    wkt: str
    context: str | None = None
    labels: list[dict] = field(default_factory=list)  # {lang, label, is_alias}
    image_url: str | None = None
    wikidata: str | None = None
    valid_from: str | None = None
    valid_to: str | None = None
    attributes: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Rejected:
    reason: str
    detail: str
    payload: str = ""


@dataclass(frozen=True)
class Profile:
    kg: str
    type_predicate: str
    entity_filter_sql: str
    geometry_link: str
    wkt_predicate: str
    cited_links: tuple[str, ...]
    extra_facts_sql: str
    build: Callable[[dict], Draft | Rejected]


NO_EXTRA = "SELECT NULL::VARCHAR AS s, NULL::STRUCT(k VARCHAR, v VARCHAR)[] AS facts WHERE false"

ALIAS_KEYS = ("alt_name", "old_name", "official_name", "short_name", "int_name", "loc_name", "reg_name")
ATTRIBUTE_KEYS = {"population": "population", "ele": "elevation_m", "admin_level": "admin_level", "capital": "capital"}


def _one(values: list[str], what: str) -> str | None | Rejected:
    distinct = sorted(set(values))
    if len(distinct) > 1:
        return Rejected("duplicate_id", f"{len(distinct)} different {what} values: the subject is defined more than once", " | ".join(distinct)[:500])
    return distinct[0] if distinct else None


def _number(v: str) -> int | float | str:
    try:
        f = float(v.replace(",", "."))
    except ValueError:
        return v
    return int(f) if f.is_integer() and "." not in v else f


def _commons_url(v: str) -> str:
    if v.startswith("http"):
        return v
    return "https://commons.wikimedia.org/wiki/" + urllib.parse.quote(v if v.startswith(("File:", "Category:")) else "File:" + v)


def _osm_category(tags: dict[str, str]) -> tuple[str, list[str]] | Rejected:
    """Category and class names of an OSM element from its raw tags (first main key wins)."""
    classes = osm_features.classify(tags)
    if not classes:
        return Rejected("unknown_category", "no OSM main map-feature tag", ", ".join(f"{k}={v}" for k, v in sorted(tags.items()))[:300])
    top = classes[0][0]
    fc = osm_features.class_index().get(top)
    category = fc.category if fc else re.sub(r"(?<!^)(?=[A-Z])", "_", top).lower()
    return category, [c for c, _ in classes]


def _osm_draft(local_id: str, iri: str, tags: dict[str, str], wkts: list[str] | None, name_langs: dict[str, str]) -> Draft | Rejected:
    """Shared by WorldKG and OSMH3KG: both carry OSM tags (``name_langs``: ISO 639-3 -> name)."""
    if not wkts:
        return Rejected("missing_geometry", "no geometry linked to the entity")
    wkt = _one(wkts, "geometry")
    if isinstance(wkt, Rejected):
        return wkt
    label = tags.get("name")
    name = name_langs.get("eng") or label
    if not name or not name.strip():
        return Rejected("missing_name", "entity has no name / rdfs:label", ", ".join(f"{k}={v}" for k, v in sorted(tags.items()))[:300])
    cat = _osm_category(tags)
    if isinstance(cat, Rejected):
        return cat
    category, types = cat
    labels = [{"lang": lang, "label": lab, "is_alias": False} for lang, lab in sorted(name_langs.items())]
    if label:
        labels.append({"lang": "und", "label": label, "is_alias": False})
    for k in ALIAS_KEYS:
        if tags.get(k):
            for alias in tags[k].split(";"):
                if alias.strip():
                    labels.append({"lang": "und", "label": alias.strip(), "is_alias": True})
    context = tags.get("addr:street") or tags.get("addr:suburb") or tags.get("is_in") or tags.get("addr:city")
    image = tags.get("image") or (_commons_url(tags["wikimedia_commons"]) if tags.get("wikimedia_commons") else None)
    attrs = {ATTRIBUTE_KEYS[k]: _number(tags[k]) for k in ATTRIBUTE_KEYS if tags.get(k)}
    attrs["osm_" + next(k for k in osm_features.MAIN_KEYS if k in tags)] = tags[next(k for k in osm_features.MAIN_KEYS if k in tags)]
    return Draft(
        local_id=local_id, iri=iri, name=name.strip(), category=category, types=types, wkt=wkt, context=context,
        labels=labels, image_url=image, wikidata=tags.get("wikidata"), attributes=attrs,
    )  # fmt: skip


# ---------------------------------------------------------------------------------------------- WorldKG
_WKG_PROP_TO_TAG = {"isIn": "is_in", "wikidata": "wikidata", "image": "image", "wikimediaCommons": "wikimedia_commons"}
_WKG_ALIAS_PROPS = {osm_features.tag_property(k): k for k in ALIAS_KEYS}
_WKG_ADDR = {"addrStreet": "addr:street", "addrSuburb": "addr:suburb", "addrCity": "addr:city"}
#: camel-cased main keys back to OSM keys ("manMade" -> "man_made") so classification sees raw tags
_WKG_KEY_PROPS = {osm_features.tag_property(k): k for k in (*osm_features.MAIN_KEYS, *ATTRIBUTE_KEYS)}


def _worldkg_build(rec: dict) -> Draft | Rejected:
    s = rec["s"]
    types, labels, tags, name_langs = [], [], {}, {}
    for po in rec["po"]:
        p, o = po["p"], po["o"]
        if p == vocab.RDF_TYPE:
            types.append(o)
        elif p == vocab.RDFS_LABEL:
            labels.append(o)
        elif p.startswith(vocab.WKGS):
            prop = p[len(vocab.WKGS) :]
            m = re.fullmatch(r"name([A-Z][a-z]{1,2})", prop)
            if m and (lang := osm_features.name_language("name:" + m.group(1).lower())):
                name_langs[lang] = o
            elif prop in _WKG_ALIAS_PROPS:
                tags[_WKG_ALIAS_PROPS[prop]] = o
            else:
                tags[_WKG_PROP_TO_TAG.get(prop) or _WKG_ADDR.get(prop) or _WKG_KEY_PROPS.get(prop) or prop] = o
    label = _one(labels, "rdfs:label")
    if isinstance(label, Rejected):
        return label
    if label:
        tags["name"] = label
    # WorldKG keeps the OSM key tags (wkgs:amenity "cafe"); recover main-key tags from the classes if absent
    for t in types:
        fc = osm_features.class_index().get(t[len(vocab.WKGS) :])
        if fc and fc.key not in tags:
            tags[fc.key] = fc.value
    return _osm_draft(s[len(vocab.WKG) :], s, tags, rec["wkts"], name_langs)


WORLDKG = Profile(
    kg="worldkg",
    type_predicate=vocab.RDF_TYPE,
    entity_filter_sql=f"o LIKE '{vocab.WKGS}%' AND s LIKE '{vocab.WKG}%'",
    geometry_link=vocab.WKGS + "spatialObject",
    wkt_predicate=vocab.GEO_AS_WKT,
    cited_links=(vocab.WKGS + "spatialObject",),
    extra_facts_sql=NO_EXTRA,
    build=_worldkg_build,
)


# ---------------------------------------------------------------------------------------------- OSMH3KG
def _osmh3kg_build(rec: dict) -> Draft | Rejected:
    s = rec["s"]
    tags: dict[str, str] = {}
    multi: dict[str, list[str]] = {}
    types: list[str] = []
    for po in rec["po"]:
        p, o = po["p"], po["o"]
        if p == vocab.OSMH3_TYPE:
            types.append(o)
        elif p != vocab.OSMH3_HAS_GEOMETRY:
            multi.setdefault(p, []).append(o)
    for k, vals in multi.items():
        v = _one(vals, k)
        if isinstance(v, Rejected):
            return v
        tags[k] = v
    for t in types:  # the raw key tag may be absent: recover it from rdf:type (value subClassOf key)
        if (key := osm_features.key_for_value(t)) and key not in tags:
            tags[key] = t
    name_langs = {lang: v for k, v in tags.items() if (lang := osm_features.name_language(k))}
    iri = f"https://www.openstreetmap.org/{s}" if re.fullmatch(r"(node|way|relation)/\d+", s) else s
    return _osm_draft(s, iri, tags, rec["wkts"], name_langs)


OSMH3KG = Profile(
    kg="osmh3kg",
    type_predicate=vocab.OSMH3_TYPE,
    entity_filter_sql=f"s NOT LIKE '{vocab.H3_SUBJECT_PREFIX}%' AND s NOT LIKE 'geo/%'",
    geometry_link=vocab.OSMH3_HAS_GEOMETRY,
    wkt_predicate=vocab.OSMH3_AS_WKT,
    cited_links=(vocab.OSMH3_HAS_GEOMETRY,),
    extra_facts_sql=NO_EXTRA,
    build=_osmh3kg_build,
)


# ---------------------------------------------------------------------------------------------- KnowWhereGraph
@functools.cache
def kwg_categories() -> dict[str, str]:
    with open(PACKAGE_DATA / "kwg_categories.csv", newline="", encoding="utf-8") as f:
        return {r["kwg_class"]: r["category"] for r in csv.DictReader(f)}


_T = vocab.TIME
_KWG_EXTRA = f"""
SELECT s, list(struct_pack(k := k, v := v) ORDER BY k, v) AS facts FROM (
    SELECT ts.s, 'instant' AS k, x.o AS v FROM stage ts
    JOIN stage x ON x.s = ts.o AND x.p IN ('{_T}inXSDDate', '{_T}inXSDDateTime')
    WHERE ts.p = '{vocab.KWG_ONT}hasTemporalScope'
    UNION ALL
    SELECT ts.s, CASE WHEN b.p = '{_T}hasBeginning' THEN 'begin' ELSE 'end' END, x.o FROM stage ts
    JOIN stage b ON b.s = ts.o AND b.p IN ('{_T}hasBeginning', '{_T}hasEnd')
    JOIN stage x ON x.s = b.o AND x.p IN ('{_T}inXSDDate', '{_T}inXSDDateTime')
    WHERE ts.p = '{vocab.KWG_ONT}hasTemporalScope'
    UNION ALL
    SELECT foi.s, 'obs:' || prop.o, res.o FROM stage foi
    JOIN stage mem ON mem.s = foi.o AND mem.p = '{vocab.SOSA}hasMember'
    JOIN stage prop ON prop.s = mem.o AND prop.p = '{vocab.SOSA}observedProperty'
    JOIN stage res ON res.s = mem.o AND res.p = '{vocab.SOSA}hasSimpleResult'
    WHERE foi.p = '{vocab.SOSA}isFeatureOfInterestOf'
) GROUP BY s
"""


def _kwg_local_id(iri: str) -> str:
    if iri.startswith(vocab.KWGR):
        return iri[len(vocab.KWGR) :]
    if iri.startswith(vocab.GNIS):
        return "gnis." + iri[len(vocab.GNIS) :]
    return urllib.parse.quote(iri, safe="")


def _kwg_build(rec: dict) -> Draft | Rejected:
    s = rec["s"]
    classes, labels, attrs = [], [], {}
    for po in rec["po"]:
        p, o = po["p"], po["o"]
        if p == vocab.RDF_TYPE and o.startswith(vocab.KWG_ONT):
            classes.append(o[len(vocab.KWG_ONT) :])
        elif p == vocab.RDFS_LABEL:
            labels.append(o)
    if not rec["wkts"]:
        return Rejected("missing_geometry", "no geo:hasGeometry/geo:asWKT for the entity")
    wkt = _one(rec["wkts"], "geometry")
    if isinstance(wkt, Rejected):
        return wkt
    label = _one(labels, "rdfs:label")
    if isinstance(label, Rejected):
        return label
    if not label or not label.strip():
        return Rejected("missing_name", "entity has no rdfs:label")
    cats = kwg_categories()
    known = [c for c in classes if c in cats]
    if not known:
        return Rejected("unknown_category", "no known KnowWhereGraph class", ", ".join(classes))
    if m := re.fullmatch(r"AdministrativeRegion_(\d)", known[0]):
        attrs["admin_level"] = int(m.group(1))
    facts = rec.get("facts") or []
    instants = sorted(f["v"] for f in facts if f["k"] == "instant")
    begins = sorted(f["v"] for f in facts if f["k"] == "begin")
    ends = sorted(f["v"] for f in facts if f["k"] == "end")
    for f in facts:
        if f["k"].startswith("obs:"):
            prop = f["k"][4:]
            attrs[re.split(r"[/#]", prop)[-1]] = _number(f["v"])
    valid_from = begins[0] if begins else (instants[0] if instants else None)
    valid_to = ends[-1] if ends else (instants[-1] if instants else None)
    return Draft(
        local_id=_kwg_local_id(s), iri=s, name=label.strip(), category=cats[known[0]], types=classes, wkt=wkt,
        labels=[{"lang": "eng", "label": label.strip(), "is_alias": False}],
        valid_from=valid_from, valid_to=valid_to, attributes=attrs,
    )  # fmt: skip


KWG = Profile(
    kg="kwg",
    type_predicate=vocab.RDF_TYPE,
    entity_filter_sql=f"o LIKE '{vocab.KWG_ONT}%'",
    geometry_link=vocab.GEO_HAS_GEOMETRY,
    wkt_predicate=vocab.GEO_AS_WKT,
    cited_links=(
        vocab.GEO_HAS_GEOMETRY, vocab.KWG_ONT + "hasTemporalScope", vocab.SOSA + "isFeatureOfInterestOf",
        vocab.SOSA + "hasMember", _T + "hasBeginning", _T + "hasEnd",
    ),  # fmt: skip
    extra_facts_sql=_KWG_EXTRA,
    build=_kwg_build,
)

PROFILES: dict[str, Profile] = {p.kg: p for p in (WORLDKG, KWG, OSMH3KG)}
