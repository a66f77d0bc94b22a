"""Per-KG profiles: SQL that turns a KG's staged triples into *facts* with one shared vocabulary.

Every KG is read into ``facts(s, k, v)``: ``s`` an entity subject, ``k`` a key of the OSM-tag-like
vocabulary below, ``v`` a string value. From there, conversion is the same for the three KGs.

=================  ================================================================================
key                meaning
=================  ================================================================================
``@type``          a source class (WorldKG ``Cafe``, OSMH3KG ``cafe``, KnowWhereGraph ``MTBSFire``)
``name``           the KG's own label (OSM ``name`` / ``rdfs:label``; KnowWhereGraph: a road
segment's
                   ``kwg-ont:hasRoadSign``, else ``rdfs:label``, else ``kwg-ont:hospitalName``)
``ref``            OSM ``ref``; KnowWhereGraph: a road segment's ``kwg-ont:hasRoadSign`` ``name:xx``
a label in language ``xx`` (OSM language subtag) ``alt_name`` ...   aliases (:data:`ALIAS_KEYS`),
``;``-separated ``amenity`` ...    OSM main-key tags (category), plus ``addr:*``, ``image``,
``wikidata``, ``population`` ... ``@instant``       KnowWhereGraph ``time:Instant`` value;
``@begin`` / ``@end`` for intervals ``obs:<attr>``     KnowWhereGraph SOSA observation result,
``<attr>`` from
                   :data:`vocab.KWG_OBSERVED_ATTRIBUTES` (e.g. ``obs:magnitude``), else the
                   property's local name; also ``obs:bedCount`` / ``obs:helipad`` of a hospital
=================  ================================================================================

Nothing here touches the warehouse; :mod:`mgqa_platform.kg.convert` runs the SQL on its staging
tables (``stage(s, p, o)``, ``ents(s)``) and the lookup tables of :func:`lookup_tables`."""

from __future__ import annotations

import csv
import functools
from dataclasses import dataclass

import pyarrow as pa

from mgqa_platform.kg import osm_features, vocab, worldkg_build
from mgqa_platform.settings import PACKAGE_DATA

ALIAS_KEYS = (
    "alt_name",
    "old_name",
    "official_name",
    "short_name",
    "int_name",
    "loc_name",
    "reg_name",
)
STREET_KEY = "addr:street"
LOCALITY_KEYS = ("addr:suburb", "is_in", "addr:city")  # the first present is the locality
CONTEXT_KEYS = (STREET_KEY, *LOCALITY_KEYS)
ATTRIBUTE_KEYS = {
    "population": "population",
    "ele": "elevation_m",
    "admin_level": "admin_level",
    "capital": "capital",
    "oneway": "oneway",  # J03: a road's digitised direction is its direction of travel
}


@dataclass(frozen=True)
class Profile:
    kg: str
    entities_sql: str  # SELECT DISTINCT s FROM stage ...
    facts_sql: str  # SELECT s, k, v over stage (entity subjects in ents)
    derived_facts_sql: str  # extra facts computed from facts (may be empty)
    geometry_sql: str  # SELECT s, wkt
    category_sql: str  # SELECT s, category, main_key, main_value
    local_id_sql: str  # expression over s
    iri_sql: str  # expression over s
    label_lang: str  # language of the 'name' fact
    cited_links: tuple[str, ...]  # predicates whose objects' triples are cited as source triples
    route_signs: bool = False  # road labels are US route signs (U101, S154, I5): kg/names.py
    no_class_reason: str | None = None  # an entity without any @type: rejected with this reason


@functools.cache
def kwg_categories() -> dict[str, str]:
    """KnowWhereGraph class IRI -> category, from ``kwg_categories.csv`` (classes written as
    CURIEs of :data:`vocab.KWG_PREFIXES`: ``kwg-ont:``, ``usgs:``, ``mgqa:``), in file order."""
    with open(PACKAGE_DATA / "kwg_categories.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    out = {}
    for r in rows:
        prefix, local = r["class"].split(":", 1)
        out[vocab.KWG_PREFIXES[prefix] + local] = r["category"]
    return out


KWG_ADMIN_LEVELS = {
    "AdministrativeRegion_1": (4, 2),
    "AdministrativeRegion_2": (6, 4),
    "AdministrativeRegion_3": (7, 6),
}
"""KnowWhereGraph admin class -> (OSM ``admin_level`` in the current graph, in the older graph).

The current graph (``administrativeRegion.USA.<FIPS>`` IRIs): level 1 a US state (OSM 4), level 2
a county (OSM 6), level 3 a county subdivision (OSM 7). The older graph (``Earth.North_America...``
IRIs, before mid-2024) counted from the country: level 1 a country (OSM 2), level 2 a state (4),
level 3 a county (6)."""
KWG_LEGACY_REGION_PREFIX = vocab.KWGR + "Earth."
"""IRI prefix of the older graph's administrative regions."""
KWG_NON_ENTITY_CLASSES = ("S2Cell_Level%", "%ObservableProperty", "%ObservationCollection")
"""``kwg-ont:`` class local-name patterns of nodes that are never entities (S2 cells, observable
properties, observation collections)."""


@functools.cache
def worldkg_classes() -> list[dict[str, str]]:
    """Our mapping table ``worldkg_class_categories.csv``: WorldKG class -> the OSM (key, value) it
    stands for and our category (scripts/worldkg_class_categories.py, docs/kg_fidelity.md
    (WorldKG))."""
    with open(PACKAGE_DATA / "worldkg_class_categories.csv", newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


#: name tags with a script subtag that label a benchmark language: zho is Simplified Chinese, so
#: ``name:zh-Hans`` (``name:zh-Hant`` is not one)
SCRIPT_NAME_TAGS = {"name:zh-Hans": "zho"}


def _worldkg_props() -> dict[str, str]:
    """WorldKG property local name -> OSM key: every key of WorldKG's key list by the builder's
    naming rule (where two keys share a name, the one without ``:``, then the first), then the keys
    the profiles read, for dumps made with a longer key list."""
    props: dict[str, str] = {}
    for k in sorted(worldkg_build.key_list(), key=lambda k: (":" in k, k)):
        props.setdefault(worldkg_build.property_name(k), k)
    ours = (*ALIAS_KEYS, *CONTEXT_KEYS, *ATTRIBUTE_KEYS, "image", "wikimedia_commons")
    names = (f"name:{two}" for two in osm_features.ISO639_1_TO_3)
    for k in (*ours, *names, *SCRIPT_NAME_TAGS):
        props.setdefault(worldkg_build.property_name(k), k)
    return props


def _worldkg_class_priorities() -> list[int]:
    """Priority of each row of :func:`worldkg_classes` (lower wins when an entity has several
    classes): its key's rank in ``MAIN_KEYS``, other keys after them alphabetically; ties by class
    name."""
    keys = sorted({r["key"] for r in worldkg_classes()})
    rank = {k: i for i, k in enumerate(osm_features.MAIN_KEYS)}
    rank.update({k: len(rank) + i for i, k in enumerate(k for k in keys if k not in rank)})
    order = sorted(worldkg_classes(), key=lambda r: (rank[r["key"]], r["worldkg_class"]))
    position = {r["worldkg_class"]: i for i, r in enumerate(order)}
    return [position[r["worldkg_class"]] for r in worldkg_classes()]


@functools.cache
def lookup_tables() -> dict[str, pa.Table]:
    """The lookup tables the profile SQL joins with, built from the package data tables."""
    mf = list(osm_features.map_features().values())
    wkg_props = _worldkg_props()
    name_langs: dict[str, str] = {}
    for two, three in osm_features.ISO639_1_TO_3.items():
        name_langs[f"name:{two}"] = three
        name_langs[f"name:{three}"] = three
    name_langs.update(SCRIPT_NAME_TAGS)
    return {
        "lk_map_features": pa.table(
            {
                "key": [x.key for x in mf],
                "value": [x.value for x in mf],
                "value_class": [x.value_class for x in mf],
                "category": [x.category for x in mf],
            }
        ),
        "lk_main_keys": pa.table(
            {
                "key": list(osm_features.MAIN_KEYS),
                "priority": list(range(len(osm_features.MAIN_KEYS))),
            }
        ),
        "lk_name_langs": pa.table({"tag": list(name_langs), "lang": list(name_langs.values())}),
        "lk_wkg_props": pa.table({"prop": list(wkg_props), "key": list(wkg_props.values())}),
        "lk_wkg_classes": pa.table(
            {
                **{c: [r[c] for r in worldkg_classes()] for c in ("worldkg_class", "key", "value")},
                "category": [r["category"] for r in worldkg_classes()],
                "priority": _worldkg_class_priorities(),
            }
        ),
        "lk_kwg_classes": pa.table(
            {
                "cls": list(kwg_categories()),
                "category": list(kwg_categories().values()),
                "priority": list(range(len(kwg_categories()))),
            }
        ),
        "lk_kwg_admin_levels": pa.table(
            {
                "cls": list(KWG_ADMIN_LEVELS),
                "level": [str(v[0]) for v in KWG_ADMIN_LEVELS.values()],
                "legacy_level": [str(v[1]) for v in KWG_ADMIN_LEVELS.values()],
            }
        ),
        "lk_kwg_observed": pa.table(
            {
                "prop": list(vocab.KWG_OBSERVED_ATTRIBUTES),
                "attr": list(vocab.KWG_OBSERVED_ATTRIBUTES.values()),
            }
        ),
    }


_OSM_CATEGORY = """
SELECT f.s,
       arg_min(coalesce(mf.category, f.k), mk.priority) AS category,
       arg_min(f.k, mk.priority) AS main_key,
       arg_min(f.v, mk.priority) AS main_value
FROM facts f JOIN lk_main_keys mk ON mk.key = f.k
LEFT JOIN lk_map_features mf ON mf.key = f.k AND mf.value = f.v
GROUP BY f.s
"""


def _q(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


# ------------------------------------------------------------------------------------------ WorldKG
_WKG_ENTITY = f"""
    SELECT DISTINCT s
    FROM stage
    WHERE s LIKE {_q(vocab.WKG + "%")}
        AND (p = {_q(vocab.RDFS_LABEL)}
            OR p LIKE {_q(vocab.WKGS + "%")}
            OR (p = {_q(vocab.RDF_TYPE)} AND o LIKE {_q(vocab.WKGS + "%")}))
"""
_WKG_FACTS = f"""
    SELECT
        t.s,
        CASE
            WHEN t.p = {_q(vocab.RDF_TYPE)} THEN '@type'
            WHEN t.p = {_q(vocab.RDFS_LABEL)} THEN 'name'
            ELSE coalesce(w.key, substr(t.p, {len(vocab.WKGS) + 1}))
        END AS k,
        CASE
            WHEN t.p = {_q(vocab.RDF_TYPE)} THEN substr(t.o, {len(vocab.WKGS) + 1})
            WHEN t.p = {_q(vocab.WKGS + "wikidata")} AND t.o LIKE {_q(vocab.WIKIDATA_PAGE + "%")}
                THEN substr(t.o, {len(vocab.WIKIDATA_PAGE) + 1})
            ELSE t.o
        END AS v
    FROM stage t
    SEMI JOIN ents USING (s)
    LEFT JOIN lk_wkg_props w ON t.p = {_q(vocab.WKGS)} || w.prop
    WHERE (t.p = {_q(vocab.RDF_TYPE)} AND t.o LIKE {_q(vocab.WKGS + "%")})
        OR t.p = {_q(vocab.RDFS_LABEL)}
        OR t.p LIKE {_q(vocab.WKGS + "%")}
"""
WORLDKG = Profile(
    kg="worldkg",
    entities_sql=_WKG_ENTITY,
    facts_sql=_WKG_FACTS,
    # the class's key tag is consumed as the type in WorldKG: recover it from our class table
    derived_facts_sql="""
        SELECT f.s, c.key, arg_min(c.value, c.priority)
        FROM facts f
        JOIN lk_wkg_classes c ON c.worldkg_class = f.v
        WHERE f.k = '@type'
            AND NOT EXISTS (SELECT 1 FROM facts g WHERE g.s = f.s AND g.k = c.key)
        GROUP BY f.s, c.key
    """,
    geometry_sql=f"""
        SELECT gl.s, w.o AS wkt FROM stage gl JOIN stage w ON w.s = gl.o AND w.p =
            {_q(vocab.GEO_AS_WKT)}
        WHERE gl.p = {_q(vocab.WKGS + "spatialObject")}""",
    # our category through our own class table; of several classes, the key first in MAIN_KEYS wins
    category_sql="""
        SELECT
            f.s,
            arg_min(c.category, c.priority) AS category,
            arg_min(c.key, c.priority) AS main_key,
            arg_min(c.value, c.priority) AS main_value
        FROM facts f
        JOIN lk_wkg_classes c ON c.worldkg_class = f.v
        WHERE f.k = '@type'
        GROUP BY f.s
    """,
    local_id_sql=f"substr(s, {len(vocab.WKG) + 1})",
    iri_sql="s",
    label_lang="und",
    cited_links=(vocab.WKGS + "spatialObject",),
    no_class_reason="no_worldkg_class",
)

# ------------------------------------------------------------------------------------------ OSMH3KG
# Reads both forms: ours (typed ``node/<id>`` subjects) and the published one (bare ids). Entities
# are the subjects of rdf:type or geo:hasGeometry that are not H3 cells (TEMP table ``h3_cells``,
# made when the table is staged); geometry nodes and class values are subjects of neither predicate.
OSMH3KG = Profile(
    kg="osmh3kg",
    entities_sql=f"""
        SELECT DISTINCT t.s
        FROM stage t
        WHERE t.p IN ({_q(vocab.OSMH3_TYPE)}, {_q(vocab.OSMH3_HAS_GEOMETRY)})
          AND NOT EXISTS (SELECT 1 FROM h3_cells c WHERE c.s = t.s)""",
    facts_sql=f"""
        SELECT t.s, CASE WHEN t.p = {_q(vocab.OSMH3_TYPE)} THEN '@type' ELSE t.p END AS k, t.o AS v
        FROM stage t SEMI JOIN ents USING (s) WHERE t.p <> {_q(vocab.OSMH3_HAS_GEOMETRY)}""",
    # the main tag is only a type: its key comes from the file's own "value rdfs:subClassOf key"
    # rows. A value under several keys (platform: highway, public_transport, railway) takes the
    # first in MAIN_KEYS order among the keys no other type of the entity needs as its only key; one
    # value per key (the first by value), the others stay types only.
    derived_facts_sql=f"""
        WITH cand AS (
            SELECT f.s, f.v, sc.o AS k, coalesce(mk.priority, 1000) AS priority
            FROM facts f
            JOIN stage sc ON sc.s = f.v AND sc.p = {_q(vocab.OSMH3_SUBCLASS)}
            LEFT JOIN lk_main_keys mk ON mk.key = sc.o
            WHERE f.k = '@type'
        ),
        sole AS (
            SELECT s, v, min(k) AS k
            FROM cand
            GROUP BY s, v
            HAVING count(*) = 1
        ),
        pick AS (
            SELECT c.s, c.v, first(c.k ORDER BY c.priority, c.k) AS k
            FROM cand c
            WHERE NOT EXISTS (SELECT 1 FROM sole o WHERE o.s = c.s AND o.k = c.k AND o.v <> c.v)
            GROUP BY c.s, c.v
        )
        SELECT s, k, v
        FROM pick d
        WHERE NOT EXISTS (SELECT 1 FROM facts g WHERE g.s = d.s AND g.k = d.k)
        QUALIFY row_number() OVER (PARTITION BY s, k ORDER BY v) = 1""",
    geometry_sql=f"""
        SELECT gl.s, w.o AS wkt FROM stage gl JOIN stage w ON w.s = gl.o AND w.p =
            {_q(vocab.OSMH3_AS_WKT)}
        WHERE gl.p = {_q(vocab.OSMH3_HAS_GEOMETRY)}""",
    category_sql=_OSM_CATEGORY,
    local_id_sql="s",
    # a typed subject names its OSM element; a published bare id does not say node, way or relation
    iri_sql="CASE WHEN regexp_full_match(s, '(node|way|relation)/[0-9]+') "
    "THEN 'https://www.openstreetmap.org/' || s ELSE s END",
    label_lang="und",
    cited_links=(vocab.OSMH3_HAS_GEOMETRY,),
)

# ----------------------------------------------------------------------------------- KnowWhereGraph
_T, _S, _K = vocab.TIME, vocab.SOSA, vocab.KWG_ONT
_KWG_CLASS_NAMESPACES = (_K, vocab.USGS_ONT, vocab.MGQA_ONT)
_KWG_TYPED = " OR ".join(f"t.o LIKE {_q(ns + '%')}" for ns in _KWG_CLASS_NAMESPACES)
_KWG_NOT_ENTITY = " OR ".join(f"t.o LIKE {_q(_K + c)}" for c in KWG_NON_ENTITY_CLASSES)
_KWG_TIME_LINKS = f"{_q(_K + 'hasTemporalScope')}, {_q(vocab.TIME_HAS_TIME)}"
_KWG_INSTANT = f"{_q(_T + 'inXSDDate')}, {_q(_T + 'inXSDDateTime')}"
#: name sources in order of preference: a road's sign, the label, a hospital's name
_KWG_NAME_PREDICATES = (_K + "hasRoadSign", vocab.RDFS_LABEL, _K + "hospitalName")
_KWG_NAME_RANK = " ".join(f"WHEN {_q(p)} THEN {i}" for i, p in enumerate(_KWG_NAME_PREDICATES))
#: temporal-scope nodes of an entity: its own (hasTemporalScope, time:hasTime) and its observation
#: collections' sosa:phenomenonTime
_KWG_SCOPES = f"""
    SELECT t.s, t.o AS scope FROM stage t SEMI JOIN ents USING (s) WHERE t.p IN ({_KWG_TIME_LINKS})
    UNION
    SELECT foi.s, pt.o FROM stage foi SEMI JOIN ents USING (s)
    JOIN stage pt ON pt.s = foi.o AND pt.p = {_q(_S + "phenomenonTime")}
    WHERE foi.p = {_q(_S + "isFeatureOfInterestOf")}"""
KWG = Profile(
    kg="kwg",
    entities_sql=f"""
        SELECT DISTINCT t.s FROM stage t
        WHERE t.p = {_q(vocab.RDF_TYPE)} AND ({_KWG_TYPED})
        EXCEPT
        SELECT t.s FROM stage t WHERE t.p = {_q(vocab.RDF_TYPE)} AND ({_KWG_NOT_ENTITY})""",
    facts_sql=f"""
        WITH scopes AS ({_KWG_SCOPES}),
        names AS (
            SELECT t.s, t.o, CASE t.p {_KWG_NAME_RANK} END AS rank
            FROM stage t SEMI JOIN ents USING (s)
            WHERE t.p IN ({", ".join(_q(p) for p in _KWG_NAME_PREDICATES)})
        ),
        best_names AS (SELECT s, o, rank, min(rank) OVER (PARTITION BY s) AS best FROM names)
        SELECT t.s, '@type' AS k, regexp_extract(t.o, '([^/#:]+)$', 1) AS v
        FROM stage t SEMI JOIN ents USING (s)
        WHERE t.p = {_q(vocab.RDF_TYPE)} AND ({_KWG_TYPED})
        UNION ALL
        SELECT n.s, 'name', n.o FROM best_names n WHERE n.rank = n.best
        UNION ALL
        SELECT sc.s, '@instant', x.o FROM scopes sc
        JOIN stage x ON x.s = sc.scope AND x.p IN ({_KWG_INSTANT})
        UNION ALL
        SELECT sc.s, CASE WHEN b.p = {_q(_T + "hasBeginning")} THEN '@begin' ELSE '@end' END, x.o
        FROM scopes sc
        JOIN stage b ON b.s = sc.scope AND b.p IN ({_q(_T + "hasBeginning")}, {_q(_T + "hasEnd")})
        JOIN stage x ON x.s = b.o AND x.p IN ({_KWG_INSTANT})
        UNION ALL
        SELECT foi.s, 'obs:' || coalesce(lk.attr, regexp_extract(prop.o, '([^/#:]+)$', 1)), res.o
        FROM stage foi SEMI JOIN ents USING (s)
        JOIN stage mem ON mem.s = foi.o AND mem.p = {_q(_S + "hasMember")}
        JOIN stage prop ON prop.s = mem.o AND prop.p = {_q(_S + "observedProperty")}
        JOIN stage res ON res.s = mem.o AND res.p = {_q(_S + "hasSimpleResult")}
        LEFT JOIN lk_kwg_observed lk ON lk.prop = prop.o
        WHERE foi.p = {_q(_S + "isFeatureOfInterestOf")}
        UNION ALL
        SELECT t.s, 'ref', t.o FROM stage t SEMI JOIN ents USING (s)
        WHERE t.p = {_q(_K + "hasRoadSign")}
        UNION ALL
        SELECT t.s, 'obs:bedCount', t.o FROM stage t SEMI JOIN ents USING (s)
        WHERE t.p = {_q(_K + "noHospitalBeds")}
        UNION ALL
        SELECT t.s, 'obs:helipad', regexp_extract(t.o, '([^/#]+)$', 1) FROM stage t SEMI JOIN ents
            USING (s)
        WHERE t.p = {_q(_K + "helipadAvailability")}""",
    derived_facts_sql=f"""
        SELECT f.s, 'admin_level',
               CASE WHEN f.s LIKE {_q(KWG_LEGACY_REGION_PREFIX + "%")} THEN a.legacy_level
                    ELSE a.level END
        FROM facts f JOIN lk_kwg_admin_levels a ON a.cls = f.v
        WHERE f.k = '@type'""",
    geometry_sql=f"""
        SELECT gl.s, w.o AS wkt FROM stage gl JOIN stage w ON w.s = gl.o AND w.p =
            {_q(vocab.GEO_AS_WKT)}
        WHERE gl.p IN ({_q(vocab.GEO_HAS_GEOMETRY)}, {_q(vocab.GEO_HAS_DEFAULT_GEOMETRY)})""",
    category_sql=f"""
        SELECT t.s, arg_min(kc.category, kc.priority) AS category, NULL AS main_key, NULL AS
            main_value
        FROM stage t SEMI JOIN ents USING (s) JOIN lk_kwg_classes kc ON kc.cls = t.o
        WHERE t.p = {_q(vocab.RDF_TYPE)} GROUP BY t.s""",
    local_id_sql="CASE "
    + " ".join(
        f"WHEN s LIKE {_q(iri + '%')} THEN {tag}substr(s, {len(iri) + 1})"
        for iri, tag in (
            (vocab.KWGR, ""),
            (vocab.GNIS, "'gnis.' || "),
            (vocab.USGS_EVENT, "'usgs.' || "),
            (vocab.MGQA_KWG, ""),
        )
    )
    + " ELSE url_encode(s) END",
    iri_sql="s",
    label_lang="eng",
    cited_links=(
        vocab.GEO_HAS_GEOMETRY,
        vocab.GEO_HAS_DEFAULT_GEOMETRY,
        _K + "hasTemporalScope",
        vocab.TIME_HAS_TIME,
        _S + "isFeatureOfInterestOf",
        _S + "hasMember",
        _S + "phenomenonTime",
        _T + "hasBeginning",
        _T + "hasEnd",
    ),
    route_signs=True,
)

PROFILES: dict[str, Profile] = {p.kg: p for p in (WORLDKG, KWG, OSMH3KG)}
