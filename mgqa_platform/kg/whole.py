"""Whole features: the pieces of one road, waterway or rail line, and the members of one place that
a reader cannot tell apart, become one entity (a step of KG conversion).

A KG stores a road, a stream or a railway in pieces (OSM ways; KnowWhereGraph road segments,
``kwg-ont:RoadSegment``), and a stop as several points (the two platforms or stop positions of one
bus stop). Each :class:`Kind` of :data:`KINDS` declares one family of whole features: the
categories and geometry kind of its pieces, the join distance in metres, whether a common ``ref``
joins pieces as a common name does, and whether pieces must share their category:

* ``road`` (:data:`mgqa_platform.lexicon.ROAD_CATEGORIES`, lines, 1 m, name or ref);
* ``waterway`` (:data:`WATERWAY_CATEGORIES`: streams, rivers, canals, ditches, drains; lines,
  100 m, name);
* ``rail`` (:data:`RAIL_CATEGORIES`: railway, subway, tram, light-rail, narrow-gauge, monorail and
  heritage lines; lines, 500 m, name or ref, same category);
* ``stop`` (:data:`STOP_CATEGORIES`: bus and tram stops, platforms, stop positions, halts,
  stations; points, 150 m, name, same category);
* ``point`` (every other point category, subway entrances included: the entrances of one station
  are several; points, 50 m, name, same category).

An entity belongs to the first kind whose geometry kind and categories it matches; an event (an
entity with a time, ``valid_from`` or ``valid_to``) belongs to none: two earthquakes of one title
are two events. Two pieces of a kind are joined when both hold:

* **same identity**: a common normalized name (:func:`identity`: case-folded, whitespace
  collapsed) among each piece's names (its entity name, its ``name`` label and its ``name:<lang>``
  labels), or, where the kind joins by ref, the same normalized ``ref`` (the OSM ``ref`` tag; in
  KnowWhereGraph the segment's ``kwg-ont:hasRoadSign``, :data:`mgqa_platform.kg.profiles.KWG`);
* **near**: their geometries come within the kind's ``join_m`` metres of each other, tested in
  degrees as ``join_m / METRES_PER_DEGREE`` (east-west the same angle spans cos(lat) times fewer
  metres, so the distance is never more than ``join_m``).

Each connected component of two or more pieces becomes one whole feature; a piece with no such
neighbour stays the entity it was, so two same-name streams far apart stay two streams. In a KG
that names its roads by US route signs (:attr:`mgqa_platform.kg.profiles.Profile.route_signs`,
KnowWhereGraph) the pieces of one route are one road whether they connect or not. Transit lines
join by the name or ref their track pieces carry: a KG that holds route relations (the categories
``route_subway``, ``route_tram``) keeps them as entities of their own, with no link from a track
piece to its route. A whole feature:

* ``entity_id`` ``<kg>:<family>/<smallest part local id>`` (sorted as strings), stable across runs;
* ``iri`` ``urn:mgqa:<family>:<entity_id>`` (:func:`whole_iri`): the whole is not a resource of
  the KG; its derived statements (:func:`whole_triples`) use that subject;
* geometry: the union of the parts (EPSG:4326, x = lon, y = lat), for lines line-merged where they
  join (a LineString, else a MultiLineString), for points a MultiPoint; representative point, H3
  cells and ``geom_kind`` from :func:`mgqa_platform.kg.convert.geometry_columns`;
* ``name`` and ``category``: those carrying the largest share of the parts' weight (WGS84 geodesic
  length for lines, one per point; ties: the smaller string); ``types``: the union of the parts'
  types; subject, context, image, wikidata and attributes from the *main part* (the heaviest part
  carrying the name, ties: the smaller id), plus the attribute ``<family>_parts`` (number of
  parts, e.g. ``road_parts``).

The parts stop being entities. ``new_parts(entity_id, part_entity_id, part_subject)`` lists them
(the warehouse table ``entity_parts``); conversion cites every part's source triples for the whole.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

import duckdb
import numpy as np
import pyarrow as pa
import shapely
from pyproj import Geod

from mgqa_platform.columns import arrow_schema
from mgqa_platform.kg.names import stop_name
from mgqa_platform.lexicon import ROAD_CATEGORIES
from mgqa_platform.warehouse import registered

METRES_PER_DEGREE = 111_320.0
#: Two road pieces are connected when their geometries are at most this many metres apart.
TOLERANCE_M = 1.0
WHOLE_IRI_PREFIX = "urn:mgqa:"
ROAD_IRI_PREFIX = "urn:mgqa:road:"
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
GEO_AS_WKT = "http://www.opengis.net/ont/geosparql#asWKT"
DCT_HAS_PART = "http://purl.org/dc/terms/hasPart"
_GEOD = Geod(ellps="WGS84")

#: Waterway line categories (OSM ``waterway=*``) whose same-name pieces are one waterway.
WATERWAY_CATEGORIES = ("stream", "river", "canal", "ditch", "drain")
#: Rail line categories (OSM ``railway=*``) whose same-name or same-ref pieces are one line.
RAIL_CATEGORIES = tuple("rail subway tram light_rail narrow_gauge monorail preserved".split())
#: Transit stop point categories whose same-name points close together are one stop.
STOP_CATEGORIES = tuple(
    "bus_stop tram_stop platform public_transport_platform stop_position halt station".split()
)


@dataclass(frozen=True)
class Kind:
    """One family of whole features: its pieces' categories (None: every category not claimed by an
    earlier kind) and geometry kind (``line`` or ``point``), the join distance in metres, whether a
    common ``ref`` joins pieces, and whether joined pieces must share their category."""

    family: str
    categories: tuple[str, ...] | None
    geom_kind: str
    join_m: float
    by_ref: bool = False
    same_category: bool = False
    name_key: Callable[[str], str | None] | None = None
    """Another form of a name under which pieces also join (stops: the name without its stop
    number or direction code, :func:`mgqa_platform.kg.names.stop_name`)."""


KINDS: tuple[Kind, ...] = (
    Kind("road", ROAD_CATEGORIES, "line", TOLERANCE_M, by_ref=True),
    Kind("waterway", WATERWAY_CATEGORIES, "line", 100.0),
    Kind("rail", RAIL_CATEGORIES, "line", 500.0, by_ref=True, same_category=True),
    Kind("stop", STOP_CATEGORIES, "point", 150.0, same_category=True, name_key=stop_name),
    Kind("point", None, "point", 50.0, same_category=True),
)
FAMILIES = tuple(k.family for k in KINDS)
ROAD = KINDS[0]

PARTS_ARROW = arrow_schema("entity_id VARCHAR, part_entity_id VARCHAR, part_subject VARCHAR")
WHOLE_FACTS_ARROW = arrow_schema("entity_id VARCHAR, s VARCHAR, p VARCHAR, o VARCHAR")


def kind_of(category: str, geom_kind: str) -> Kind | None:
    """The first kind of :data:`KINDS` whose geometry kind and categories a piece matches."""
    for k in KINDS:
        if k.geom_kind == geom_kind and (k.categories is None or category in k.categories):
            return k
    return None


def family_of(entity_id: str) -> str | None:
    """The family of a whole feature's id ``<kg>:<family>/<local id>``; None for any other id."""
    local = entity_id.split(":", 1)[-1]
    family = local.split("/", 1)[0]
    return family if "/" in local and family in FAMILIES else None


def whole_iri(entity_id: str) -> str:
    """The IRI of a whole feature: ``urn:mgqa:<family>:<entity_id>``."""
    return f"{WHOLE_IRI_PREFIX}{family_of(entity_id)}:{entity_id}"


def is_whole_iri(iri: str) -> bool:
    """Whether ``iri`` names a whole feature (:func:`whole_iri`), not a resource of a KG."""
    return any(iri.startswith(f"{WHOLE_IRI_PREFIX}{f}:") for f in FAMILIES)


def parts_attribute(family: str) -> str:
    """The attribute counting a whole feature's parts: ``<family>_parts``."""
    return f"{family}_parts"


@dataclass(frozen=True)
class Part:
    """One piece: entity id, subject, name, ``ref`` (or None), category, types, geometry
    (shapely, EPSG:4326, x = lon, y = lat), attributes (JSON text or None) and its other names
    (``name`` and ``name:<lang>`` labels)."""

    entity_id: str
    subject: str
    name: str
    ref: str | None
    category: str
    types: tuple[str, ...]
    geom: shapely.Geometry
    attributes: str | None = None
    other_names: tuple[str, ...] = ()

    def identities(self) -> set[str]:
        """The normalized forms of all the piece's names."""
        return {n for n in map(identity, (self.name, *self.other_names)) if n}


@dataclass(frozen=True)
class Whole:
    """A whole feature: its family, id, main part id, name, category, types, merged geometry
    (EPSG:4326, x = lon, y = lat), attributes (JSON text) and parts (sorted by entity id)."""

    family: str
    entity_id: str
    main_part: str
    name: str
    category: str
    types: tuple[str, ...]
    geom: shapely.Geometry
    attributes: str
    parts: tuple[Part, ...]


def identity(text: str | None) -> str | None:
    """Normalized road identity of a name or ref: case-folded, inner whitespace collapsed; None if
    empty."""
    if text is None:
        return None
    norm = " ".join(text.split()).casefold()
    return norm or None


def geodesic_length_m(g: shapely.Geometry) -> float:
    """WGS84 geodesic length in metres of a lon/lat (EPSG:4326) line or multi-line."""
    return float(_GEOD.geometry_length(g))


def components(parts: list[Part], kind: Kind = ROAD, route_signs: bool = False) -> list[list[int]]:
    """Connected components (lists of indices into ``parts``, each of two or more, sorted) of the
    relation "a common name (or, where ``kind.by_ref``, the same ref), the same category where
    ``kind.same_category``, and at most ``kind.join_m`` metres apart"; with ``route_signs``,
    pieces with the same ref are one whole at any distance."""
    if len(parts) < 2:
        return []
    parent = list(range(len(parts)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    idents = [_identities(p, kind) for p in parts]
    refs = [identity(p.ref) if kind.by_ref else None for p in parts]
    geoms = np.array([p.geom for p in parts], dtype=object)
    tree = shapely.STRtree(geoms)
    left, right = tree.query(geoms, predicate="dwithin", distance=kind.join_m / METRES_PER_DEGREE)
    for i, j in zip(left.tolist(), right.tolist(), strict=True):
        if i < j and _same(parts[i], parts[j], idents, refs, kind, (i, j)):
            parent[root(j)] = root(i)
    if route_signs:
        first_of_ref: dict[str, int] = {}
        for i, ref in enumerate(refs):
            if ref is not None:
                parent[root(i)] = root(first_of_ref.setdefault(ref, i))
    groups: dict[int, list[int]] = defaultdict(list)
    for i in range(len(parts)):
        groups[root(i)].append(i)
    return sorted(sorted(g) for g in groups.values() if len(g) > 1)


def _identities(p: Part, kind: Kind) -> set[str]:
    """The normalized forms under which piece ``p`` joins others of ``kind``: its names and, where
    the kind has a ``name_key``, their keyed forms ("605 La Riberola" -> "la riberola")."""
    ids = p.identities()
    if kind.name_key is not None:
        keyed = (kind.name_key(n) for n in (p.name, *p.other_names) if n)
        ids |= {k for k in map(identity, keyed) if k}
    return ids


def _same(
    a: Part,
    b: Part,
    idents: list[set[str]],
    refs: list[str | None],
    kind: Kind,
    ij: tuple[int, int],
) -> bool:
    """Whether two near pieces ``a`` = ``parts[i]``, ``b`` = ``parts[j]`` are one whole."""
    i, j = ij
    if kind.same_category and a.category != b.category:
        return False
    return bool(idents[i] & idents[j]) or (refs[i] is not None and refs[i] == refs[j])


def _weight(g: shapely.Geometry) -> float:
    """A part's weight in a whole: WGS84 geodesic length in metres for a line, 1 for a point."""
    return geodesic_length_m(g) if shapely.get_dimensions(g) == 1 else 1.0


def _longest_share(values: list[str], lengths: list[float]) -> str:
    total: dict[str, float] = defaultdict(float)
    for v, n in zip(values, lengths, strict=True):
        total[v] += n
    return min(total, key=lambda v: (-total[v], v))


def assemble(kg: str, parts: list[Part], family: str = ROAD.family) -> Whole:
    """The whole feature of ``family`` made of ``parts`` (one connected component), by the rules
    of the module docstring."""
    weights = [_weight(p.geom) for p in parts]
    name = _longest_share([p.name for p in parts], weights)
    category = _longest_share([p.category for p in parts], weights)
    main = min(
        ((-n, p.entity_id, p) for p, n in zip(parts, weights, strict=True) if p.name == name),
        key=lambda x: x[:2],
    )[2]
    attributes = json.loads(main.attributes or "{}") | {parts_attribute(family): len(parts)}
    smallest = min(p.entity_id.split(":", 1)[1] for p in parts)
    merged = shapely.union_all([p.geom for p in parts])
    if shapely.get_dimensions(merged) == 1:
        merged = shapely.line_merge(merged)
    return Whole(
        family=family,
        entity_id=f"{kg}:{family}/{smallest}",
        main_part=main.entity_id,
        name=name,
        category=category,
        types=tuple(sorted({t for p in parts for t in p.types})),
        geom=merged,
        attributes=json.dumps(attributes, sort_keys=True, ensure_ascii=False),
        parts=tuple(sorted(parts, key=lambda p: p.entity_id)),
    )


def whole_triples(whole: Whole) -> list[tuple[str, str, str]]:
    """Derived statements of a whole feature under its own subject (:func:`whole_iri`): its name
    (``rdfs:label``), its merged geometry (``geo:asWKT``, lon/lat EPSG:4326) and its parts
    (``dcterms:hasPart`` -> each part's subject). The parts' type and part-of triples are added
    in SQL (:data:`SHARED_PART_TRIPLES_SQL`)."""
    s = whole_iri(whole.entity_id)
    return [
        (s, RDFS_LABEL, whole.name),
        (s, GEO_AS_WKT, shapely.to_wkt(whole.geom, rounding_precision=-1)),
        *((s, DCT_HAS_PART, p.subject) for p in whole.parts),
    ]


#: Type triples of any part, and part-of triples (``sfWithin`` / ``administrativePartOf``) that
#: every part states, restated for the whole's subject: the whole is of its parts' types, and
#: lies within a region when each of its parts does.
SHARED_PART_TRIPLES_SQL = f"""
WITH part_triples AS (
    SELECT
        p.entity_id,
        t.p,
        t.o,
        count(DISTINCT p.part_subject) AS n_parts_stating
    FROM new_parts p
    JOIN stage t ON t.s = p.part_subject
    WHERE t.p LIKE '%rdf-syntax-ns#type'
        OR t.p = 'rdf:type'
        OR t.p LIKE '%/sfWithin'
        OR t.p LIKE '%/administrativePartOf'
    GROUP BY p.entity_id, t.p, t.o
),
sizes AS (
    SELECT
        entity_id,
        count(*) AS n_parts
    FROM new_parts
    GROUP BY entity_id
)
SELECT
    t.entity_id,
    '{WHOLE_IRI_PREFIX}'
        || regexp_extract(t.entity_id, '^[^:]*:([^/]*)/', 1)
        || ':'
        || t.entity_id AS s,
    t.p,
    t.o
FROM part_triples t
JOIN sizes USING (entity_id)
WHERE t.p LIKE '%rdf-syntax-ns#type'
    OR t.p = 'rdf:type'
    OR t.n_parts_stating = sizes.n_parts
"""

_PARTS_SQL = """
SELECT
    e.entity_id,
    e.subject,
    e.name,
    f.ref,
    f.names,
    e.category,
    e.types,
    e.wkb,
    e.attributes,
    e.geom_kind
FROM new_entities e
LEFT JOIN (
    SELECT
        s,
        min(v) FILTER (WHERE k = 'ref') AS ref,
        list(v ORDER BY k, v) FILTER (WHERE k <> 'ref') AS names
    FROM facts
    WHERE k = 'ref'
        OR k = 'name'
        OR regexp_full_match(k, 'name:[a-z]{2,3}')
    GROUP BY s
) f ON f.s = e.subject
WHERE e.geom_kind IN ('line', 'point')
    AND coalesce(e.name, '') <> ''
    AND e.valid_from IS NULL
    AND e.valid_to IS NULL
ORDER BY e.entity_id
"""


def read_parts(con: duckdb.DuckDBPyConnection) -> dict[str, list[Part]]:
    """The candidate pieces of the conversion temp table ``new_entities`` (with ``facts`` for
    ``ref`` and the ``name`` / ``name:<lang>`` labels), by family (:func:`kind_of`): named lines
    and points without a time."""
    out: dict[str, list[Part]] = {k.family: [] for k in KINDS}
    for eid, subject, name, ref, names, category, types, wkb, attrs, gk in con.execute(
        _PARTS_SQL
    ).fetchall():
        kind = kind_of(category, gk)
        if kind is None:
            continue
        geom = shapely.from_wkb(wkb)
        others = tuple(names or ())
        part = Part(eid, subject, name, ref, category, tuple(types or ()), geom, attrs, others)
        out[kind.family].append(part)
    return out


def find_wholes(con: duckdb.DuckDBPyConnection, kg: str, route_signs: bool = False) -> list[Whole]:
    """The whole features of the conversion temp table ``new_entities``, every family of
    :data:`KINDS`, sorted by entity id; ``route_signs`` applies to roads (:func:`components`)."""
    by_family = read_parts(con)
    wholes = []
    for kind in KINDS:
        parts = by_family[kind.family]
        signs = route_signs and kind.family == ROAD.family
        for group in components(parts, kind, signs):
            wholes.append(assemble(kg, [parts[i] for i in group], kind.family))
    return sorted(wholes, key=lambda w: w.entity_id)


#: The validity rule (``questions_valid``) of a question whose cited members include two pieces
#: of one whole feature.
PIECES_OF_ONE_WHOLE = "pieces_of_one_whole"


def pieces_of_one_whole(members: list[tuple[str, str, str, str, shapely.Geometry]]) -> bool:
    """Whether two of ``members`` (entity id, name, category, geometry kind, geometry in
    EPSG:4326) that are no whole features themselves would be one whole feature by the rules of
    :data:`KINDS` (their names only, no ref): what conversion merges never reaches a question as
    two members. A whole feature is left out: it may lie near a namesake through a part that
    carries another name or ref."""
    by_family: dict[str, list[Part]] = defaultdict(list)
    for eid, name, category, geom_kind, geom in members:
        kind = kind_of(category, geom_kind) if family_of(eid) is None else None
        if kind is not None:
            by_family[kind.family].append(Part(eid, eid, name, None, category, (), geom))
    kinds = {k.family: k for k in KINDS}
    return any(components(parts, kinds[f]) for f, parts in by_family.items())


def _tables(
    wholes: list[Whole], geometry_columns: Callable[[np.ndarray], dict[str, pa.Array]]
) -> tuple[pa.Table, pa.Table, pa.Table]:
    """The Arrow tables of the parts, the derived statements and the merged entity rows."""
    part_rows = [(w.entity_id, p.entity_id, p.subject) for w in wholes for p in w.parts]
    parts = pa.Table.from_pylist(
        [dict(zip(PARTS_ARROW.names, row, strict=True)) for row in part_rows], schema=PARTS_ARROW
    )
    own = [(w.entity_id, *t) for w in wholes for t in whole_triples(w)]
    facts = pa.Table.from_pylist(
        [dict(zip(WHOLE_FACTS_ARROW.names, row, strict=True)) for row in own],
        schema=WHOLE_FACTS_ARROW,
    )
    merged = pa.table(
        {
            "entity_id": pa.array([w.entity_id for w in wholes], pa.string()),
            "main_part": pa.array([w.main_part for w in wholes], pa.string()),
            "iri": pa.array([whole_iri(w.entity_id) for w in wholes], pa.string()),
            "name": pa.array([w.name for w in wholes], pa.string()),
            "category": pa.array([w.category for w in wholes], pa.string()),
            "types": pa.array([list(w.types) for w in wholes], pa.list_(pa.string())),
            "attributes": pa.array([w.attributes for w in wholes], pa.string()),
            **geometry_columns(np.array([w.geom for w in wholes], dtype=object)),
        }
    )
    return parts, facts, merged


def merge_wholes(
    con: duckdb.DuckDBPyConnection,
    kg: str,
    geometry_columns: Callable[[np.ndarray], dict[str, pa.Array]],
    route_signs: bool = False,
) -> None:
    """Replace, in the conversion temp table ``new_entities``, the pieces of each whole feature by
    one row; create the temp tables ``new_parts`` (whole -> parts) and ``new_whole_triples`` (the
    wholes' derived statements). Needs the conversion temp tables ``facts`` and ``stage``.

    ``geometry_columns`` computes the geometry columns of entity rows from shapely geometries
    (:func:`mgqa_platform.kg.convert.geometry_columns`); ``route_signs``: the KG names roads by
    route signs, whose pieces are one road at any distance (:func:`components`)."""
    new_parts, whole_facts, merged = _tables(find_wholes(con, kg, route_signs), geometry_columns)
    with registered(con, _parts=new_parts, _whole_facts=whole_facts, _merged=merged):
        con.execute(
            """
            CREATE OR REPLACE TEMP TABLE new_parts AS
            SELECT *
            FROM _parts
            ORDER BY entity_id, part_entity_id
            """
        )
        con.execute(
            """
            INSERT INTO new_entities BY NAME
            SELECT
                m.* EXCLUDE (
                    entity_id, iri, name, category, types, wkb, geom_kind, lon, lat, h3, attributes
                ),
                r.* EXCLUDE (main_part)
            FROM _merged r
            JOIN new_entities m ON m.entity_id = r.main_part
            """
        )
        con.execute(
            f"""
            CREATE OR REPLACE TEMP TABLE new_whole_triples AS
            SELECT *
            FROM _whole_facts
            UNION ALL
            SELECT *
            FROM ({SHARED_PART_TRIPLES_SQL})
            """
        )
    con.execute(
        """
        DELETE FROM new_entities
        WHERE entity_id IN (
            SELECT part_entity_id
            FROM new_parts
        )
        """
    )


__all__ = [
    "FAMILIES",
    "PIECES_OF_ONE_WHOLE",
    "KINDS",
    "TOLERANCE_M",
    "Kind",
    "Part",
    "Whole",
    "assemble",
    "components",
    "family_of",
    "find_wholes",
    "geodesic_length_m",
    "identity",
    "is_whole_iri",
    "kind_of",
    "merge_wholes",
    "parts_attribute",
    "pieces_of_one_whole",
    "whole_iri",
    "whole_triples",
]
